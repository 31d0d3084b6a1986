/**
 * Workspace quotas (docs/storage.md, Quotas): limits on the bytes of the current files, on the
 * bytes of every version kept, and on the number of current files, set in the workspace's
 * settings (unset: unlimited). A mutation is refused with QUOTA_EXCEEDED (413) when it would
 * grow a counter past its limit; one that shrinks or keeps it passes, so a workspace put over a
 * lowered quota can always be cleaned up.
 *
 * Two checks. `withinQuota` is the one that holds: inside the committing transaction, after the
 * mutation, against counters the database keeps in that transaction (store/metadata/
 * usage-queries.ts). Writers of a workspace are serialised there — SQLite has one writer and a
 * group commit runs its operations one after another; PostgreSQL writers take the schema's write
 * lock first (`writeTransaction`) — so a burst of concurrent writes at the limit admits exactly what
 * fits. `precheckQuota` is the early one: where the size is known before the content is stored
 * (an upload's declared size, Content-Length, content in memory) it refuses before any byte is.
 */
import { SatchelError } from '@satchel/client/errors.js';
import { validateWorkspaceName } from '@satchel/client/paths.js';
import type { WorkspaceSettings, WorkspaceUsage } from '@satchel/client/schemas/index.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { workspaceSettings } from '../kernel/workspace-settings.js';
import type {
  EntryRecord,
  MetadataQueries,
  MetadataTx,
  WorkspaceRecord,
} from '../store/metadata/metadata-store.js';
import type { UsageCounters } from '../store/metadata/usage-queries.js';

type QuotaName = keyof WorkspaceUsage['quota'];

interface Limit {
  readonly quota: QuotaName;
  readonly counter: keyof UsageCounters;
  readonly setting: keyof WorkspaceSettings;
  /** What the counter counts, for the message. */
  readonly what: string;
}

const LIMITS: readonly Limit[] = [
  {
    quota: 'bytes',
    counter: 'currentBytes',
    setting: 'quotaBytes',
    what: 'bytes of current files',
  },
  {
    quota: 'historyBytes',
    counter: 'historyBytes',
    setting: 'quotaHistoryBytes',
    what: 'bytes with history',
  },
  { quota: 'files', counter: 'files', setting: 'quotaFiles', what: 'files' },
];

/** The limits set on a workspace, or null when it has none (the common case costs nothing). */
function limitsOf(ws: WorkspaceRecord): { limit: Limit; value: number }[] | null {
  // Most workspaces have no quota, and their settings JSON then names none.
  if (!ws.settings.includes('quota')) return null;
  const settings = workspaceSettings(ws.settings);
  const set: { limit: Limit; value: number }[] = [];
  for (const limit of LIMITS) {
    const value = settings[limit.setting];
    if (typeof value === 'number') set.push({ limit, value });
  }
  return set.length > 0 ? set : null;
}

function exceeded(ws: WorkspaceRecord, limit: Limit, value: number, usage: number, after: number) {
  return new SatchelError(
    'QUOTA_EXCEEDED',
    `workspace ${ws.name} is limited to ${value} ${limit.what}; it holds ${usage} and this ` +
      `change would bring it to ${after}: delete files, or ask an administrator to raise the quota`,
    { workspace: ws.name, quota: limit.quota, usage, limit: value, requested: after - usage },
  );
}

/** How much a mutation grows each counter (negative: shrinks). */
export type Growth = UsageCounters;

/** The growth of writing `size` bytes over `head` (the path's entry now, if any). */
export function writeGrowth(size: number, head: EntryRecord | undefined): Growth {
  const replaced = head?.type === 'file' ? head.size : 0;
  return { currentBytes: size - replaced, historyBytes: size, files: head ? 0 : 1 };
}

/** Whether a workspace has any quota set (so that a precheck is worth a read). */
export function hasQuota(ws: WorkspaceRecord): boolean {
  return limitsOf(ws) !== null;
}

/**
 * Refuses, before anything is stored, a mutation that would grow the workspace past a quota by
 * `growth`, against the counters as last committed. Costs one read, and only when a quota is
 * set. The transaction checks again (`withinQuota`): this check only saves storing the bytes.
 */
export async function precheckQuota(
  q: MetadataQueries,
  ws: WorkspaceRecord,
  growth: Growth,
): Promise<void> {
  const limits = limitsOf(ws);
  if (!limits) return;
  const usage = await q.usage.counters(ws.id);
  for (const { limit, value } of limits) {
    const grows = growth[limit.counter];
    const now = usage[limit.counter];
    if (grows > 0 && now + grows > value) throw exceeded(ws, limit, value, now, now + grows);
  }
}

/**
 * Runs `mutate` in `tx` and refuses it with QUOTA_EXCEEDED — its changes rolled back with the
 * transaction (or the batch operation's savepoint) — when it grew a counter of `ws` past its
 * limit. `ws` is the workspace row as this transaction read it (its settings hold the quotas).
 * Without quotas, it only runs `mutate`.
 */
export async function withinQuota<T>(
  tx: MetadataTx,
  ws: WorkspaceRecord,
  mutate: () => Promise<T>,
): Promise<T> {
  const limits = limitsOf(ws);
  if (!limits) return mutate();
  const before = await tx.usage.counters(ws.id);
  const result = await mutate();
  const after = await tx.usage.counters(ws.id);
  for (const { limit, value } of limits) {
    const was = before[limit.counter];
    const now = after[limit.counter];
    if (now > was && now > value) throw exceeded(ws, limit, value, was, now);
  }
  return result;
}

/** What a workspace stores and its quotas (`getWorkspaceUsage`). */
export async function getWorkspaceUsage(
  ctx: EngineContext,
  rawName: string,
): Promise<WorkspaceUsage> {
  const name = validateWorkspaceName(rawName);
  const ws = await requireWorkspace(ctx.store, name);
  const [counters, deduplicatedBytes] = await Promise.all([
    ctx.store.usage.counters(ws.id),
    ctx.store.usage.deduplicatedBytes(ws.id),
  ]);
  const settings = workspaceSettings(ws.settings);
  return {
    workspace: ws.name,
    ...counters,
    deduplicatedBytes,
    quota: {
      bytes: settings.quotaBytes,
      historyBytes: settings.quotaHistoryBytes,
      files: settings.quotaFiles,
    },
  };
}
