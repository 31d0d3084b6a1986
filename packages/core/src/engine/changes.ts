/**
 * The change feed: a workspace's versions in seq order, readable from any cursor, with long
 * polling. It is what the REST change feed, SSE, webhooks, MCP subscriptions and sync's watch
 * mode read.
 */

import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizePath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type ChangesPage,
  type ListChangesOptions,
  ListChangesOptionsSchema,
} from '@satchel/client/schemas/index.js';
import type { ChangeNotifier } from '../kernel/change-notifier.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { changeEvent } from '../kernel/records.js';

/**
 * Changes after `options.after`, oldest first. A page holds at most `limit` events and never
 * splits one change (all events of a seq come together; a single change larger than the limit is
 * returned whole). With `waitSeconds`, an empty result waits until a change commits (woken by
 * its signal, from this process or another; re-read every `notifier.recheckMs` in case a signal
 * was lost) or the time is up.
 */
export async function listChanges(
  ctx: EngineContext,
  notifier: ChangeNotifier,
  workspace: string,
  rawOptions?: ListChangesOptions,
): Promise<ChangesPage> {
  validateWorkspaceName(workspace);
  const options = parseOptions(ListChangesOptionsSchema, rawOptions);
  const dir = options.path === undefined ? undefined : normalizePath(options.path);
  const after = options.after ?? 0;
  const limit = options.limit ?? 100;
  const deadline = Date.now() + (options.waitSeconds ?? 0) * 1000;
  for (let first = true; ; first = false) {
    if (notifier.closed) return { events: [], cursor: after };
    const ws = await requireWorkspace(ctx.store, workspace);
    // A cursor past the head was never returned for this workspace (a lock token passed by
    // mistake, or a cursor of a deleted workspace of the same name): waiting would miss every
    // change below it, so say so.
    if (first && after > ws.seq) throw beyondHead(workspace, after, ws.seq);
    const rows = await ctx.store.wholeChanges(ws.id, {
      after,
      limit,
      ...(dir === undefined ? {} : { dir }),
    });
    if (rows.length > 0) {
      const events = rows.map(changeEvent);
      return { events, cursor: events.at(-1)?.seq ?? after };
    }
    const left = deadline - Date.now();
    if (left <= 0 || notifier.closed) return { events: [], cursor: after };
    await notifier.wait(workspace, Math.min(left, notifier.recheckMs));
  }
}

function beyondHead(workspace: string, after: number, head: number): SatchelError {
  return new SatchelError(
    'INVALID_INPUT',
    `cursor ${after} is past the head of ${workspace} (seq ${head}): continue from a cursor a ` +
      'previous call returned, or from 0 for everything',
    { field: 'after', after, head, reason: 'cursor_beyond_head' },
  );
}
