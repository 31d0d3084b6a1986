/**
 * The change feed: a workspace's versions in seq order, readable from any cursor, with long
 * polling. It is what the REST change feed, SSE, webhooks, MCP subscriptions and sync's watch
 * mode read.
 */
import { normalizePath, validateWorkspaceName } from '../paths.js';
import {
  type ChangeEvent,
  type ChangesPage,
  type ListChangesOptions,
  ListChangesOptionsSchema,
  type VersionOp,
} from '../schemas.js';
import type { VersionRow } from '../store/metadata/metadata-store.js';
import { type EngineContext, iso, parseOptions, requireWorkspace } from './context.js';

/** While waiting, also re-read this often: another process may have committed. */
const CROSS_PROCESS_RECHECK_MS = 1000;

/** Wakes long polls when a change commits in this process. */
export class ChangeNotifier {
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #listeners = new Set<(workspace: string) => void>();
  #closed = false;

  /**
   * Calls `listener` (synchronously, so it must only schedule work) after every commit that
   * changed a workspace, until the returned function is called. The search indexer listens.
   */
  subscribe(listener: (workspace: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** True once the engine is closing: long polls end at once, with what they have. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Called after every commit that changed `workspace`. */
  notify(workspace: string): void {
    if (!this.#closed) for (const listener of this.#listeners) listener(workspace);
    const waiters = this.#waiters.get(workspace);
    if (!waiters) return;
    this.#waiters.delete(workspace);
    for (const wake of waiters) wake();
  }

  /** Resolves on the next change of `workspace`, or after `ms`, whichever comes first. */
  wait(workspace: string, ms: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(workspace) ?? new Set();
      this.#waiters.set(workspace, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  /** Releases every waiter (engine close). */
  close(): void {
    this.#closed = true;
    for (const workspace of [...this.#waiters.keys()]) this.notify(workspace);
  }
}

function changeOf(row: VersionRow): ChangeEvent {
  return {
    seq: Number(row.seq),
    type: row.op as VersionOp,
    path: row.path,
    version: Number(row.seq),
    deleted: row.deleted === 1,
    kind: row.type,
    size: Number(row.size),
    hash: row.hash,
    actor: row.author,
    session: row.session,
    time: iso(Number(row.created_at)),
    origin:
      row.origin_path !== null && row.origin_seq !== null
        ? { path: row.origin_path, seq: Number(row.origin_seq) }
        : null,
  };
}

/**
 * Changes after `options.after`, oldest first. A page holds at most `limit` events and never
 * splits one change (all events of a seq come together; a single change larger than the limit is
 * returned whole). With `waitSeconds`, an empty result waits until a change commits (in this
 * process: at once; in another: within a second) or the time is up.
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
  for (;;) {
    if (notifier.closed) return { events: [], cursor: after };
    const ws = await requireWorkspace(ctx.store, workspace);
    const rows = await ctx.store.listChanges(ws.id, {
      after,
      limit: limit + 1,
      ...(dir === undefined ? {} : { dir }),
    });
    if (rows.length > 0) {
      const events = await wholeChanges(rows, limit, ctx, ws.id, dir);
      return { events, cursor: events.at(-1)?.seq ?? after };
    }
    const left = deadline - Date.now();
    if (left <= 0 || notifier.closed) return { events: [], cursor: after };
    await notifier.wait(workspace, Math.min(left, CROSS_PROCESS_RECHECK_MS));
  }
}

/** The first `limit` rows as events, cut at a change boundary. */
async function wholeChanges(
  rows: VersionRow[],
  limit: number,
  ctx: EngineContext,
  workspaceId: string,
  dir: string | undefined,
): Promise<ChangeEvent[]> {
  if (rows.length <= limit) return rows.map(changeOf);
  const page = rows.slice(0, limit);
  const lastSeq = Number(page.at(-1)?.seq);
  // The change at the cut continues on the next row: leave it for the next page…
  const whole = page.filter((row) => Number(row.seq) !== lastSeq);
  if (whole.length > 0) return whole.map(changeOf);
  // …unless it is the only one: then it comes whole, however large.
  const all = await ctx.store.listChanges(workspaceId, {
    atSeq: lastSeq,
    ...(dir === undefined ? {} : { dir }),
  });
  return all.map(changeOf);
}
