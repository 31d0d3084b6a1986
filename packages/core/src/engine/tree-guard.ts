/**
 * Keeps a tree a tree when many paths change in one seq (undo, merge): a directory is not
 * removed (or replaced by a file) while anything stays beneath it, and nothing is written
 * beneath what will be a file. Read-only: it only moves planned changes out of the plan.
 */
import { isWithin, parentOf } from '@satchel/client/paths.js';
import type { EntryRecord, MetadataQueries } from '../store/metadata/metadata-store.js';

const SUBTREE_PAGE = 1000;

/** One planned change: the path's head now, and what it becomes (undefined: it goes). */
export interface TreeChange {
  readonly path: string;
  readonly head: EntryRecord | undefined;
  readonly target: { readonly type: 'file' | 'directory' } | undefined;
}

/** Why a change had to stay out of the plan. */
export type TreeConflictReason = 'not_empty' | 'parent_is_file';

/**
 * Removes from `changes` (and hands to `stay`) the changes that would break the tree, until
 * none would: removing a directory (or replacing it by a file) while something stays beneath
 * it, or bringing a path in beneath what will be a file. Each removal can only make more paths
 * stay, so it ends.
 */
export async function keepTree<C extends TreeChange>(
  q: MetadataQueries,
  workspaceId: string,
  changes: Map<string, C>,
  stay: (change: C, reason: TreeConflictReason) => void,
): Promise<void> {
  const entries = new Map<string, EntryRecord | undefined>();
  const current = async (path: string) => {
    if (!entries.has(path)) entries.set(path, await q.getEntry(workspaceId, path));
    return entries.get(path);
  };
  // What a path is once the plan is applied: its target if it changes, its head otherwise.
  const finalType = async (path: string): Promise<'file' | 'directory' | undefined> => {
    const change = changes.get(path);
    if (change) return change.target?.type;
    return (await current(path))?.type;
  };
  const below = new Map<string, string[]>();
  const livePathsBelow = async (dir: string): Promise<string[]> => {
    let paths = below.get(dir);
    if (!paths) {
      paths = [];
      for (let after: string | null = null; ; ) {
        const page = await q.listEntries(workspaceId, dir, true, after, SUBTREE_PAGE);
        paths.push(...page.map((e) => e.path));
        const lastEntry = page.at(-1);
        if (page.length < SUBTREE_PAGE || !lastEntry) break;
        after = lastEntry.path;
      }
      below.set(dir, paths);
    }
    return paths;
  };
  const leave = (change: C, reason: TreeConflictReason) => {
    changes.delete(change.path);
    stay(change, reason);
  };

  for (let moved = true; moved; ) {
    moved = false;
    for (const change of [...changes.values()]) {
      const clearsDirectory =
        change.head?.type === 'directory' && change.target?.type !== 'directory';
      if (clearsDirectory) {
        const beneath = [
          ...(await livePathsBelow(change.path)),
          ...[...changes.keys()].filter((p) => p !== change.path && isWithin(p, change.path)),
        ];
        let occupied = false;
        for (const path of beneath) {
          if ((await finalType(path)) !== undefined) {
            occupied = true;
            break;
          }
        }
        if (occupied) {
          leave(change, 'not_empty');
          moved = true;
          continue;
        }
      }
      if (change.target !== undefined) {
        for (let dir = parentOf(change.path); dir !== '/'; dir = parentOf(dir)) {
          if ((await finalType(dir)) === 'file') {
            leave(change, 'parent_is_file');
            moved = true;
            break;
          }
        }
      }
    }
  }
}
