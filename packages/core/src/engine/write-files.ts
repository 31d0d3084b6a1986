/**
 * Many files in one transaction: `writeFiles` (content in memory) and the groups of
 * `uploadFiles` (batch-transfer.ts) share `commitFiles`, so a batch pays one transaction, one
 * audit entry and one fsync for all of its files.
 */
import { SatchelError } from '@satchel/client/errors.js';
import type { BatchFile } from '@satchel/client/operations/satchel.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizeEntryPath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type FileInfo,
  type MutationOptions,
  MutationOptionsSchema,
  type WriteOptions,
} from '@satchel/client/schemas/index.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import type { MetadataTx } from '../store/metadata/metadata-store.js';
import { ingest, retryCollected, type StoredContent } from './ingest.js';
import { hasQuota, precheckQuota, writeGrowth } from './quota.js';
import { byteLength, commitContent } from './write.js';
import { commitBulk } from './write-group.js';

export async function writeFiles(
  ctx: EngineContext,
  workspace: string,
  files: readonly BatchFile[],
  rawOptions?: MutationOptions,
): Promise<FileInfo[]> {
  validateWorkspaceName(workspace);
  const options = parseOptions(MutationOptionsSchema, rawOptions);
  if (!Array.isArray(files) || files.length === 0) {
    throw new SatchelError('INVALID_INPUT', 'files must be a non-empty array', { field: 'files' });
  }
  const seen = new Set<string>();
  const checked: { path: string; file: BatchFile }[] = [];
  for (const file of files) {
    const path = normalizeEntryPath(file.path);
    if (seen.has(path)) {
      throw new SatchelError('INVALID_INPUT', `${path} appears twice in the batch`, { path });
    }
    seen.add(path);
    if (typeof file.content !== 'string' && !(file.content instanceof Uint8Array)) {
      throw new SatchelError('INVALID_INPUT', `content of ${path} must be a string or bytes`, {
        path,
      });
    }
    checked.push({ path, file });
  }
  await precheckBatch(ctx, workspace, checked);
  // Every file's content is in memory: stored again if garbage collection removed it meanwhile.
  return retryCollected(async () => {
    const prepared: { path: string; file: BatchFile; stored: StoredContent }[] = [];
    for (const { path, file } of checked) {
      prepared.push({ path, file, stored: await ingest(file.content, ctx.limits, ctx.blobs) });
    }
    const group = prepared.map(({ path, file, stored }) => ({
      path,
      stored,
      ifMatch: file.ifMatch,
      ifNoneMatch: file.ifNoneMatch,
    }));
    return ctx.commit((tx) => commitFiles(tx, ctx, workspace, group, options));
  });
}

/** One file of a group commit: its content stored (or found) and its own conditions. */
export interface GroupFile {
  readonly path: string;
  readonly stored: StoredContent;
  readonly ifMatch?: number | undefined;
  readonly ifNoneMatch?: '*' | undefined;
}

/**
 * Commits every file of `files` as a new version, in the caller's transaction (`writeFiles`, a
 * group of `uploadFiles`): one claim of a transaction, one audit entry and one fsync for all of
 * them, and — for two or more distinct paths — one bulk write of their metadata (write-group.ts).
 * A refusal of any file throws, and the transaction rolls back the whole group.
 */
export async function commitFiles(
  tx: MetadataTx,
  ctx: EngineContext,
  workspace: string,
  files: readonly GroupFile[],
  options: WriteOptions,
): Promise<FileInfo[]> {
  if (files.length > 1 && new Set(files.map((file) => file.path)).size === files.length) {
    const bulk = await commitBulk(tx, ctx, workspace, files, options);
    if (bulk) return bulk;
  }
  const out: FileInfo[] = [];
  for (const { path, stored, ifMatch, ifNoneMatch } of files) {
    const conditions = { ...options, ifMatch, ifNoneMatch };
    out.push(await commitContent(tx, ctx, workspace, path, stored, 'write', conditions));
  }
  return out;
}

/** A batch over a quota is refused before any of its content is stored. */
async function precheckBatch(
  ctx: EngineContext,
  workspace: string,
  files: readonly { path: string; file: BatchFile }[],
): Promise<void> {
  const ws = await requireWorkspace(ctx.store, workspace);
  if (!hasQuota(ws)) return;
  const total = { currentBytes: 0, historyBytes: 0, files: 0 };
  for (const { path, file } of files) {
    const growth = writeGrowth(byteLength(file.content), await ctx.store.getEntry(ws.id, path));
    total.currentBytes += growth.currentBytes;
    total.historyBytes += growth.historyBytes;
    total.files += growth.files;
  }
  await precheckQuota(ctx.store, ws, total);
}
