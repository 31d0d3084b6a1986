/**
 * Writing a file by the hash of content the workspace already holds: no bytes travel. Sync uses
 * it before uploading (a renamed or copied file, content restored after a reset).
 */
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizeEntryPath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type FileInfo,
  type WriteOptions,
  WriteOptionsSchema,
} from '@satchel/client/schemas/index.js';
import { ContentHashSchema } from '@satchel/client/schemas/sync.js';
import { blobBytes } from '../kernel/content.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import type { BlobRecord, MetadataQueries } from '../store/metadata/metadata-store.js';
import type { StoredContent } from './ingest.js';
import { commitContent } from './write.js';

const SNIFF_BYTES = 8192;

function unknownContent(hash: string): SatchelError {
  return new SatchelError('NOT_FOUND', `the workspace holds no content with hash ${hash}`, {
    hash,
    reason: 'content_unknown',
  });
}

/**
 * The blob of `hash` when a version of this workspace (current, historical or deleted) refers to
 * it. Content of other workspaces is never reachable by hash: knowing a digest grants nothing.
 */
async function workspaceBlob(
  q: MetadataQueries,
  workspaceId: string,
  hash: string,
): Promise<BlobRecord | undefined> {
  return q.content.readable([workspaceId], hash);
}

/**
 * Writes a new version of `path` whose content is the workspace's existing content `hash`, with
 * the conditions of `writeFile` (ifMatch, ifNoneMatch, lockToken). NOT_FOUND (`reason:
 * 'content_unknown'`) when no version of this workspace holds that content: upload it instead.
 * INVALID_INPUT for a hash that is not 64 lowercase hex digits.
 */
export async function writeFileByHash(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  rawHash: string,
  rawOptions?: WriteOptions,
): Promise<FileInfo> {
  validateWorkspaceName(workspace);
  const path = normalizeEntryPath(rawPath);
  const hash = parseOptions(ContentHashSchema, rawHash);
  const options = parseOptions(WriteOptionsSchema, rawOptions);
  const ws = await requireWorkspace(ctx.store, workspace);
  const blob = await workspaceBlob(ctx.store, ws.id, hash);
  if (!blob) throw unknownContent(hash);
  const size = blob.size;
  const head: Uint8Array[] = [];
  // The first bytes, for the content type of a name that does not tell it.
  for await (const piece of blobBytes(ctx, blob, 0, Math.min(size, SNIFF_BYTES))) head.push(piece);
  const stored: StoredContent = {
    hash,
    size,
    inline: null,
    ref: null,
    head: Buffer.concat(head),
  };
  return ctx.commit(async (tx) => {
    // The registry row exists already (putBlob keeps it); check it is still referenced here.
    const row = await workspaceBlob(tx, ws.id, hash);
    if (!row) throw unknownContent(hash);
    return commitContent(tx, ctx, workspace, path, stored, 'write', options);
  });
}
