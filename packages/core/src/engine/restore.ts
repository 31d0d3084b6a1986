/** Restoring a version: a new version of a path holding an earlier version's content. */
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizeEntryPath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type FileInfo,
  type WriteOptions,
  WriteOptionsSchema,
} from '@satchel/client/schemas/index.js';
import {
  checkPreconditions,
  type EngineContext,
  notFound,
  redactedError,
  requireWorkspace,
} from '../kernel/context.js';
import { checkWriteLocks } from '../locks/locks.js';
import type { MetadataTx, WorkspaceRecord } from '../store/metadata/metadata-store.js';
import { resolveVersion } from './history.js';
import { withinQuota } from './quota.js';
import { ensureParents, putDirectory, putFile, stamp } from './versions.js';

/**
 * Writes the content (or directory) of version `seq` of `path` as its new head, with the
 * conditions of a write. NOT_FOUND for no such version, INVALID_INPUT for a deletion,
 * CONFLICT when the path is now of the other type, QUOTA_EXCEEDED past a quota.
 */
export async function restore(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  seq: number,
  rawOptions?: WriteOptions,
): Promise<FileInfo> {
  validateWorkspaceName(workspace);
  const path = normalizeEntryPath(rawPath);
  const options = parseOptions(WriteOptionsSchema, rawOptions);
  if (!Number.isSafeInteger(seq) || seq < 0) {
    throw new SatchelError('INVALID_INPUT', 'version must be a non-negative integer', {
      field: 'version',
    });
  }
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    return withinQuota(tx, ws, () => restoreVersion(tx, ctx, ws, path, seq, options));
  });
}

async function restoreVersion(
  tx: MetadataTx,
  ctx: EngineContext,
  ws: WorkspaceRecord,
  path: string,
  seq: number,
  options: WriteOptions,
): Promise<FileInfo> {
  const version = await resolveVersion(tx, ws.id, path, seq);
  if (!version) throw notFound(`${path}@${seq}`, 'version');
  if (version.deleted) {
    throw new SatchelError(
      'INVALID_INPUT',
      `version ${seq} of ${path} is a deletion; pick a version with content`,
      {
        path,
        seq,
      },
    );
  }
  const head = await tx.getEntry(ws.id, path);
  if (head && head.type !== version.type) {
    throw new SatchelError('CONFLICT', `${path} is now a ${head.type}`, {
      path,
      reason: 'type_mismatch',
    });
  }
  checkPreconditions(path, head, options);
  const s = await stamp(tx, ctx, ws.id, options.session);
  await checkWriteLocks(tx, ctx, ws.id, { path, tree: false }, options.lockToken, s.now);
  await ensureParents(tx, s, path);
  const origin = { path: version.path, seq: version.seq };
  if (version.type === 'directory') return putDirectory(tx, s, path, 'restore', { origin });
  if (version.hash === null) throw redactedError(version.path, version.seq);
  return putFile(
    tx,
    s,
    path,
    'restore',
    {
      hash: version.hash,
      size: version.size,
      contentType: version.contentType ?? 'application/octet-stream',
    },
    { origin, message: options.message },
  );
}
