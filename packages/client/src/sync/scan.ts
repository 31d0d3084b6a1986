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
import type { HashedFile, LocalFile, RemoteFile } from './plan.js';
import type { SyncState } from './state.js';
import { SymlinkInPathError, type SyncTree, type TreeEntry } from './tree.js';

const HASH_CONCURRENCY = 4;
/** Files new to the tree up to this size may wait to be hashed until they are uploaded. */
export const DEFERRED_MAX = 256 * 1024;
const LIST_PAGE = 1000;

export interface Scan {
  readonly local: Map<string, LocalFile>;
  readonly skipped: SyncSkipped[];
  /** Workspace paths where the tree has a symbolic link: the plan holds what lies there. */
  readonly links: Set<string>;
  /** Workspace paths of tree files too large for the tree to read: held by the plan. */
  readonly unread: Set<string>;
  readonly treeExists: boolean;
  /** Files found exactly as the state records them (size, mtime and inode). */
  readonly asRecorded: number;
}

/** `file` with the SHA-256 of `content`, its bytes as read. */
export function withHash(file: LocalFile, content: Uint8Array): HashedFile {
  return localFile(file.path, file.name, file, createHash('sha256').update(content).digest('hex'));
}

/** `file` with the SHA-256 of its content as the tree reads it now. */
export async function hashFile(tree: SyncTree, file: LocalFile): Promise<HashedFile> {
  const hash = createHash('sha256');
  for await (const piece of tree.read(file.name)) hash.update(piece);
  return localFile(file.path, file.name, file, hash.digest('hex'));
}

/** The workspace path of a tree path, or null when the name cannot be one. */
export function workspacePath(name: string): string | null {
  try {
    return normalizePath(`/${name}`);
  } catch {
    return null;
  }
}

/**
 * The record of a file, built field by field: V8 gives a spread copy of an object with a
 * fractional field (mtimeMs) a hidden class of its own, ~250 bytes more per file held.
 */
function localFile<H extends string | null>(
  path: string,
  name: string,
  at: Pick<TreeEntry, 'size' | 'mtimeMs' | 'ino'>,
  hash: H,
): LocalFile & { hash: H } {
  const { size, mtimeMs, ino } = at;
  return ino === undefined
    ? { path, name, size, mtimeMs, hash }
    : { path, name, size, mtimeMs, hash, ino };
}

/** What a scan found besides the files: reported skips, links and files it could not read. */
type Findings = Pick<Scan, 'skipped' | 'links' | 'unread'>;

/**
 * Hashes `files` into `local` (HASH_CONCURRENCY at once). A file that turns out to be beneath a
 * link, too large for the tree or gone is left out of `local` and reported in `findings`.
 */
async function hashInto(
  files: readonly LocalFile[],
  tree: SyncTree,
  local: Map<string, LocalFile>,
  { skipped, links, unread }: Findings,
): Promise<void> {
  await eachLimit(files, HASH_CONCURRENCY, async (file) => {
    const { path, name } = file;
    try {
      local.set(path, await hashFile(tree, file));
    } catch (error) {
      local.delete(path);
      if (error instanceof SymlinkInPathError) {
        skipped.push({ path: name, reason: 'symlink', detail: error.message });
        links.add(path);
        const link = workspacePath(error.link);
        if (link !== null) links.add(link);
        return;
      }
      if (isSatchelError(error, 'TOO_LARGE')) {
        // Reported and left alone on both sides: not taken for a deletion.
        skipped.push({ path: name, reason: 'too_large', detail: error.message });
        unread.add(path);
        return;
      }
      // Deleted between the listing and the read: it is simply not there.
      if ((error as NodeJS.ErrnoException | null)?.code !== 'ENOENT') throw error;
    }
  });
}

/**
 * Classifies tree entries: files by workspace path (hashed only when size, mtime or inode differ
 * from the state), the rest skipped with a reason. Symbolic links are never followed, only
 * reported, and their paths collected so the plan holds everything at or beneath them; a file
 * whose folder turned into a link after the listing is refused by the tree's `read` and
 * treated the same; a file the tree refuses to read as TOO_LARGE is reported and held. Entries
 * are deduplicated by path (a watch cycle may stat one link twice).
 *
 * With `deferNew`, a file of at most DEFERRED_MAX bytes that the state does not know is left
 * unhashed (`hash: null`): if the workspace has no file there either (`hashListed`), it is
 * uploaded, and read once, then — an initial push reads each file once, not twice.
 */
export async function classify(
  entries: readonly TreeEntry[],
  tree: SyncTree,
  rules: IgnoreRules,
  state: SyncState,
  { deferNew = false }: { readonly deferNew?: boolean } = {},
): Promise<Omit<Scan, 'treeExists'>> {
  const findings: Findings = { skipped: [], links: new Set(), unread: new Set() };
  const { skipped, links } = findings;
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
  const toHash: LocalFile[] = [];
  let asRecorded = 0;
  for (const [path, entry] of found) {
    const known = state.get(path);
    if (
      known &&
      known.size === entry.size &&
      known.mtimeMs === entry.mtimeMs &&
      (known.ino === undefined || known.ino === entry.ino)
    ) {
      if (known.ino === entry.ino) asRecorded++;
      local.set(path, localFile(path, entry.path, entry, known.hash));
    } else {
      const file = localFile(path, entry.path, entry, null);
      if (deferNew && !known && entry.size <= DEFERRED_MAX) local.set(path, file);
      else toHash.push(file);
    }
  }
  await hashInto(toHash, tree, local, findings);
  return { local, ...findings, asRecorded };
}

/**
 * Hashes the files a scan deferred (`deferNew`) where `remote` has a file at the same path: the
 * plan compares those. The others stay unhashed, uploads that read and hash their content.
 */
export async function hashListed(
  scan: Pick<Scan, 'local' | 'skipped' | 'links' | 'unread'>,
  remote: ReadonlyMap<string, RemoteFile>,
  tree: SyncTree,
): Promise<void> {
  const toHash = [...scan.local.values()].filter((f) => f.hash === null && remote.has(f.path));
  await hashInto(toHash, tree, scan.local, scan);
}

/** Scans `tree` under `rules`; `listed`: its entries, when a walk under them just ran. */
export async function scanTree(
  tree: SyncTree,
  rules: IgnoreRules,
  state: SyncState,
  options: { readonly deferNew?: boolean; readonly listed?: TreeEntry[] } = {},
): Promise<Scan> {
  const treeExists = await tree.exists();
  const entries = !treeExists
    ? []
    : (options.listed ?? (await tree.list((dir) => rules.ignores(dir, true))));
  return { ...(await classify(entries, tree, rules, state, options)), treeExists };
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
