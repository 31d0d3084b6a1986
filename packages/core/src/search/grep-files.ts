/**
 * The files a grep (or a search as of a seq) reads, in path order: the live entries beneath a
 * path, or — `at` a seq — the files as they were then (store/metadata/past-queries.ts).
 */
import { globMatcher } from '@satchel/client/glob.js';
import { parentOf } from '@satchel/client/paths.js';
import { notFound } from '../kernel/context.js';
import type {
  EntryRecord,
  MetadataQueries,
  VersionRecord,
} from '../store/metadata/metadata-store.js';

const SCAN_PAGE = 500;

/** A version as the entry it was while it was current. */
function asEntry(v: VersionRecord): EntryRecord {
  return {
    workspaceId: v.workspaceId,
    path: v.path,
    parent: parentOf(v.path),
    type: v.type,
    seq: v.seq,
    size: v.size,
    hash: v.hash,
    contentType: v.contentType,
    author: v.author,
    session: v.session,
    modifiedAt: v.createdAt,
  };
}

/** One page of the tree beneath `root` after `after`: now (`at` null) or as it was at `at`. */
async function page(
  q: MetadataQueries,
  workspaceId: string,
  root: string,
  at: number | null,
  after: string | null,
): Promise<EntryRecord[]> {
  if (at === null) return q.listEntries(workspaceId, root, true, after, SCAN_PAGE);
  return (await q.past.list(workspaceId, root, at, true, after, SCAN_PAGE)).map(asEntry);
}

/**
 * Files at or beneath `root` whose path relative to it matches `glob`; NOT_FOUND when `root`
 * does not exist (then, or at `at`).
 */
export async function* filesOf(
  q: MetadataQueries,
  workspaceId: string,
  root: string,
  glob: string | undefined,
  at: number | null,
): AsyncGenerator<EntryRecord> {
  if (root !== '/') {
    const entry =
      at === null
        ? await q.getEntry(workspaceId, root)
        : await q.past
            .version(workspaceId, root, at)
            .then((v) => (v === undefined || v.deleted ? undefined : asEntry(v)));
    if (!entry) throw notFound(root);
    if (entry.type === 'file') {
      yield entry;
      return;
    }
  }
  const isMatch = glob === undefined ? null : globMatcher(glob);
  const prefix = root === '/' ? 1 : root.length + 1;
  let after: string | null = null;
  for (;;) {
    const rows = await page(q, workspaceId, root, at, after);
    for (const row of rows) {
      if (row.type !== 'file') continue;
      if (isMatch && !isMatch(row.path.slice(prefix))) continue;
      yield row;
    }
    const last = rows.at(-1);
    if (rows.length < SCAN_PAGE || !last) return;
    after = last.path;
  }
}
