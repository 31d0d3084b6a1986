/**
 * What a sync cycle sees: the tree's files (hashed only when size, mtime or inode changed since
 * the last sync, symbolic links collected, unusable names skipped) and the workspace's files, both
 * filtered by the ignore rules.
 */
import { createHash } from 'node:crypto';
import { eachLimit } from '../each-limit.js';
import { isSatchelError } from '../errors.js';
import type { Satchel } from '../operations/satchel.js';
import { normalizePath } from '../paths.js';
import type { SyncSkipped } from '../schemas/sync.js';
import type { IgnoreRules } from './ignore.js';
import type { LocalFile, RemoteFile } from './plan.js';
import type { SyncState } from './state.js';
import { SymlinkInPathError, type SyncTree, type TreeEntry } from './tree.js';

const HASH_CONCURRENCY = 4;
const LIST_PAGE = 1000;

export interface Scan {
  readonly local: Map<string, LocalFile>;
  readonly skipped: SyncSkipped[];
  /** Workspace paths where the tree has a symbolic link: the plan holds what lies there. */
  readonly links: Set<string>;
  /** Workspace paths of tree files too large for the tree to read: held by the plan. */
  readonly unread: Set<string>;
  readonly treeExists: boolean;
}

async function hashContent(
  source: AsyncIterable<Uint8Array>,
): Promise<{ hash: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const piece of source) {
    hash.update(piece);
    size += piece.byteLength;
  }
  return { hash: hash.digest('hex'), size };
}

/** The workspace path of a tree path, or null when the name cannot be one. */
export function workspacePath(name: string): string | null {
  try {
    return normalizePath(`/${name}`);
  } catch {
    return null;
  }
}

function localFile(path: string, entry: TreeEntry, hash: string): LocalFile {
  const { size, mtimeMs, ino } = entry;
  return ino === undefined
    ? { path, name: entry.path, size, mtimeMs, hash }
    : { path, name: entry.path, size, mtimeMs, hash, ino };
}

/**
 * Classifies tree entries: files by workspace path (hashed only when size, mtime or inode differ
 * from the state), the rest skipped with a reason. Symbolic links are never followed, only
 * reported, and their paths collected so the plan holds everything at or beneath them; a file
 * whose folder turned into a link after the listing is refused by the tree's `read` and
 * treated the same; a file the tree refuses to read as TOO_LARGE is reported and held. Entries
 * are deduplicated by path (a watch cycle may stat one link twice).
 */
export async function classify(
  entries: readonly TreeEntry[],
  tree: SyncTree,
  rules: IgnoreRules,
  state: SyncState,
): Promise<Omit<Scan, 'treeExists'>> {
  const skipped: SyncSkipped[] = [];
  const links = new Set<string>();
  const unread = new Set<string>();
  const found = new Map<string, TreeEntry>();
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.path)) continue;
    seen.add(entry.path);
    if (!rules.trivial && rules.ignores(entry.path)) continue;
    if (entry.type !== 'file') {
      skipped.push({
        path: entry.path,
        reason: entry.type === 'symlink' ? 'symlink' : 'special_file',
      });
      const path = workspacePath(entry.path);
      if (entry.type === 'symlink' && path !== null) links.add(path);
      continue;
    }
    // A name the state knows is already a valid, normalised workspace path.
    const known = `/${entry.path}`;
    const path = state.get(known) ? known : workspacePath(entry.path);
    if (path === null) {
      skipped.push({ path: entry.path, reason: 'invalid_name' });
    } else if (found.has(path)) {
      skipped.push({ path: entry.path, reason: 'duplicate_name', detail: `same name as ${path}` });
    } else {
      found.set(path, entry);
    }
  }
  const local = new Map<string, LocalFile>();
  const toHash: Array<[string, TreeEntry]> = [];
  for (const [path, entry] of found) {
    const known = state.get(path);
    if (
      known &&
      known.size === entry.size &&
      known.mtimeMs === entry.mtimeMs &&
      (known.ino === undefined || known.ino === entry.ino)
    ) {
      local.set(path, localFile(path, entry, known.hash));
    } else {
      toHash.push([path, entry]);
    }
  }
  await eachLimit(toHash, HASH_CONCURRENCY, async ([path, entry]) => {
    try {
      const { hash } = await hashContent(tree.read(entry.path));
      local.set(path, localFile(path, entry, hash));
    } catch (error) {
      if (error instanceof SymlinkInPathError) {
        skipped.push({ path: entry.path, reason: 'symlink', detail: error.message });
        links.add(path);
        const link = workspacePath(error.link);
        if (link !== null) links.add(link);
        return;
      }
      if (isSatchelError(error, 'TOO_LARGE')) {
        // Reported and left alone on both sides: not taken for a deletion.
        skipped.push({ path: entry.path, reason: 'too_large', detail: error.message });
        unread.add(path);
        return;
      }
      // Deleted between the listing and the read: it is simply not there.
      if ((error as NodeJS.ErrnoException | null)?.code !== 'ENOENT') throw error;
    }
  });
  return { local, skipped, links, unread };
}

export async function scanTree(
  tree: SyncTree,
  rules: IgnoreRules,
  state: SyncState,
): Promise<Scan> {
  const treeExists = await tree.exists();
  const entries = treeExists ? await tree.list((dir) => rules.ignores(dir, true)) : [];
  return { ...(await classify(entries, tree, rules, state)), treeExists };
}

/**
 * The workspace's files, as sync sees them. A file whose content an owner redacted has nothing
 * to download: it is left out, and its path added to `redacted` when given.
 */
export async function listRemote(
  satchel: Satchel,
  workspace: string,
  rules: IgnoreRules,
  redacted?: string[],
): Promise<Map<string, RemoteFile>> {
  const remote = new Map<string, RemoteFile>();
  let cursor: string | undefined;
  do {
    const page = await satchel.list(workspace, { recursive: true, limit: LIST_PAGE, cursor });
    for (const info of page.items) {
      if (info.type !== 'file') continue;
      if (!rules.trivial && rules.ignores(info.path.slice(1))) continue;
      if (rules.trivial && rules.ignores(info.path.slice(1), false, true)) continue;
      if (info.hash === null) {
        redacted?.push(info.path);
        continue;
      }
      remote.set(info.path, { path: info.path, seq: info.seq, hash: info.hash, size: info.size });
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return remote;
}
