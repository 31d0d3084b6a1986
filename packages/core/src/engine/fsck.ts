/** fsck: re-hash every stored blob, check every version's content exists, report orphans. */
import { createHash } from 'node:crypto';
import { isSatchelError } from '@satchel/client/errors.js';
import type { FsckReport } from '@satchel/client/schemas/index.js';
import { blobBytes } from '../kernel/content.js';
import type { EngineContext } from '../kernel/context.js';
import type { BlobRecord } from '../store/metadata/metadata-store.js';

const PAGE = 500;
const MAX_LISTED = 1000;

export async function fsck(ctx: EngineContext): Promise<FsckReport> {
  const corrupt: FsckReport['corrupt'] = [];
  const orphans: string[] = [];
  const registered = new Set<string>();
  let blobsChecked = 0;
  let after: string | null = null;
  for (;;) {
    const rows = await ctx.store.fsck.listBlobs(after, PAGE);
    for (const meta of rows) {
      blobsChecked++;
      registered.add(meta.hash);
      const data =
        meta.location === 'inline' ? await ctx.store.fsck.getInlineData(meta.hash) : null;
      const row: BlobRecord = { ...meta, data };
      const problem = await rehash(ctx, row);
      if (problem && corrupt.length < MAX_LISTED)
        corrupt.push({ hash: meta.hash, reason: problem });
      if (!(await ctx.store.isReferenced(meta.hash)) && orphans.length < MAX_LISTED) {
        orphans.push(meta.hash);
      }
    }
    const last = rows.at(-1);
    if (rows.length < PAGE || !last) break;
    after = last.hash;
  }
  // Files in the blob store that no registry row names: left by a write that never committed.
  for await (const hash of ctx.blobs.list()) {
    if (!registered.has(hash) && orphans.length < MAX_LISTED) orphans.push(hash);
  }
  const names = new Map((await ctx.store.workspaceNames()).map((w) => [w.id, w.name]));
  const missing = (await ctx.store.fsck.versionsWithoutBlob(MAX_LISTED)).map((v) => ({
    workspace: names.get(v.workspaceId) ?? v.workspaceId,
    path: v.path,
    seq: v.seq,
    hash: v.hash ?? '',
  }));
  const full = (list: readonly unknown[]) => list.length >= MAX_LISTED;
  return {
    ok: corrupt.length === 0 && missing.length === 0,
    truncated: full(corrupt) || full(missing) || full(orphans),
    blobsChecked,
    versionsChecked: await ctx.store.fsck.countVersions(),
    corrupt,
    missing,
    orphans,
  };
}

/** Reads the blob through the verifying path and hashes it whole; returns the problem, if any. */
async function rehash(ctx: EngineContext, row: BlobRecord): Promise<string | null> {
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const piece of blobBytes(ctx, row, 0, row.size)) {
      hash.update(piece);
      size += piece.byteLength;
    }
  } catch (error) {
    if (isSatchelError(error, 'INTEGRITY')) return String(error.data.reason ?? error.message);
    throw error;
  }
  if (size !== row.size) return `size is ${size}, expected ${row.size}`;
  if (hash.digest('hex') !== row.hash) return 'content does not match its hash';
  return null;
}
