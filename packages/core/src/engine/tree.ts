/** Mutations of the tree itself: remove, move and copy, of files and whole directories. */
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { isWithin, normalizeEntryPath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type CopyOptions,
  CopyOptionsSchema,
  type FileInfo,
  type MoveOptions,
  MoveOptionsSchema,
  type RemoveOptions,
  RemoveOptionsSchema,
  type RemoveResult,
} from '@satchel/client/schemas/index.js';
import { contentTypeByName } from '../kernel/content.js';
import {
  checkPreconditions,
  type EngineContext,
  notFound,
  requireWorkspace,
} from '../kernel/context.js';
import { checkUnlocked, checkWriteLocks } from '../locks/locks.js';
import type { EntryRecord, MetadataTx } from '../store/metadata/metadata-store.js';
import { withinQuota } from './quota.js';
import {
  ensureParents,
  putDirectory,
  putFile,
  putTombstone,
  type Stamp,
  stamp,
} from './versions.js';

const SUBTREE_PAGE = 1000;

/** Every entry strictly beneath `dir`, in path order. */
async function subtree(tx: MetadataTx, workspaceId: string, dir: string): Promise<EntryRecord[]> {
  const out: EntryRecord[] = [];
  let after: string | null = null;
  for (;;) {
    const page = await tx.listEntries(workspaceId, dir, true, after, SUBTREE_PAGE);
    out.push(...page);
    const last = page.at(-1);
    if (page.length < SUBTREE_PAGE || !last) return out;
    after = last.path;
  }
}

export async function remove(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  rawOptions?: RemoveOptions,
): Promise<RemoveResult> {
  validateWorkspaceName(workspace);
  const path = normalizeEntryPath(rawPath);
  const options = parseOptions(RemoveOptionsSchema, rawOptions);
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const entry = await tx.getEntry(ws.id, path);
    if (!entry) throw notFound(path);
    checkPreconditions(path, entry, options);
    const below = entry.type === 'directory' ? await subtree(tx, ws.id, path) : [];
    if (below.length > 0 && !options.recursive) {
      throw new SatchelError(
        'CONFLICT',
        `${path} is a directory with ${below.length} entries; delete it recursively to remove them all`,
        { path, entries: below.length, reason: 'not_empty' },
      );
    }
    const s = await stamp(tx, ctx, ws.id, options.session);
    const tree = entry.type === 'directory';
    await checkWriteLocks(tx, ctx, ws.id, { path, tree }, options.lockToken, s.now);
    // Deepest first, so no entry is ever left without its parent.
    for (const child of below.reverse()) await putTombstone(tx, s, child, 'delete');
    await putTombstone(tx, s, entry, 'delete');
    return { seq: s.seq, removed: below.length + 1 };
  });
}

interface Transfer {
  readonly source: EntryRecord;
  readonly target: string;
}

/** Plans a move or copy of `from` (file or directory) to `to`, checking every destination. */
async function plan(
  tx: MetadataTx,
  workspaceId: string,
  from: string,
  to: string,
  overwrite: boolean,
): Promise<{ root: EntryRecord; transfers: Transfer[] }> {
  if (from === to) {
    throw new SatchelError('INVALID_INPUT', 'source and destination are the same path', {
      path: from,
    });
  }
  const root = await tx.getEntry(workspaceId, from);
  if (!root) throw notFound(from);
  if (root.type === 'directory' && isWithin(to, from)) {
    throw new SatchelError('INVALID_INPUT', `cannot put ${from} inside itself (${to})`, {
      from,
      to,
    });
  }
  const sources =
    root.type === 'directory' ? [root, ...(await subtree(tx, workspaceId, from))] : [root];
  const transfers: Transfer[] = [];
  for (const source of sources) {
    const target = to + source.path.slice(from.length);
    const existing = await tx.getEntry(workspaceId, target);
    if (existing) {
      const bothDirs = existing.type === 'directory' && source.type === 'directory';
      if (!bothDirs && (!overwrite || existing.type !== source.type)) {
        throw new SatchelError(
          'CONFLICT',
          overwrite
            ? `${target} exists and is a ${existing.type}`
            : `${target} already exists; allow overwriting to replace it`,
          { path: target, reason: overwrite ? 'type_mismatch' : 'exists' },
        );
      }
    }
    transfers.push({ source, target });
  }
  return { root, transfers };
}

async function apply(
  tx: MetadataTx,
  s: Stamp,
  transfers: readonly Transfer[],
  op: 'move' | 'copy',
): Promise<FileInfo> {
  const [first] = transfers;
  if (!first) throw new SatchelError('INTERNAL', 'empty transfer');
  await ensureParents(tx, s, first.target);
  let rootInfo: FileInfo | null = null;
  for (const { source, target } of transfers) {
    const origin = { path: source.path, seq: source.seq };
    const info =
      source.type === 'directory'
        ? await putDirectory(tx, s, target, op, { origin })
        : await putFile(
            tx,
            s,
            target,
            op,
            {
              hash: source.hash ?? '',
              size: source.size,
              contentType:
                contentTypeByName(target) || source.contentType || 'application/octet-stream',
            },
            { origin },
          );
    rootInfo ??= info;
  }
  if (op === 'move') {
    // Deepest first, mirroring remove.
    for (const { source } of [...transfers].reverse()) {
      await putTombstone(tx, s, source, 'move');
    }
  }
  if (!rootInfo) throw new SatchelError('INTERNAL', 'empty transfer');
  return rootInfo;
}

export async function move(
  ctx: EngineContext,
  workspace: string,
  rawFrom: string,
  rawTo: string,
  rawOptions?: MoveOptions,
): Promise<FileInfo> {
  validateWorkspaceName(workspace);
  const from = normalizeEntryPath(rawFrom);
  const to = normalizeEntryPath(rawTo);
  const options = parseOptions(MoveOptionsSchema, rawOptions);
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const { root, transfers } = await plan(tx, ws.id, from, to, options.overwrite ?? false);
    checkPreconditions(from, root, options);
    const s = await stamp(tx, ctx, ws.id, options.session);
    const tree = root.type === 'directory';
    await checkWriteLocks(tx, ctx, ws.id, { path: from, tree }, options.lockToken, s.now);
    // The token fences the source (what its holder locked); the destination only has to be free
    // of other locks (one tree lock over both lets a single token cover the move).
    await checkUnlocked(tx, ws.id, { path: to, tree }, options.lockToken, s.now);
    // A move keeps the current bytes but adds versions at the destination to the history.
    return withinQuota(tx, ws, () => apply(tx, s, transfers, 'move'));
  });
}

export async function copy(
  ctx: EngineContext,
  workspace: string,
  rawFrom: string,
  rawTo: string,
  rawOptions?: CopyOptions,
): Promise<FileInfo> {
  validateWorkspaceName(workspace);
  const from = normalizeEntryPath(rawFrom);
  const to = normalizeEntryPath(rawTo);
  const options = parseOptions(CopyOptionsSchema, rawOptions);
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const { root, transfers } = await plan(tx, ws.id, from, to, options.overwrite ?? false);
    const s = await stamp(tx, ctx, ws.id, options.session);
    const tree = root.type === 'directory';
    await checkWriteLocks(tx, ctx, ws.id, { path: to, tree }, options.lockToken, s.now);
    return withinQuota(tx, ws, () => apply(tx, s, transfers, 'copy'));
  });
}
