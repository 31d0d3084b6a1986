/**
 * Telling a restored tree from a user's deletions. A tree can lose files without anyone deleting
 * them: a sandbox that boots CLEAN, from an archive (a CodeSandbox VM dormant for about two
 * weeks comes back from git: gitignored files gone, every mtime new) or as a fork. Sync would
 * otherwise send those absences to the workspace as deletions. Files missing from the tree are
 * treated as a restore — brought back from the workspace, never deleted there — when:
 * - the caller says the tree was restored (`restored`: the provider knows the boot type);
 * - every file the tree still has with its synced content has a new mtime (they were all
 *   rewritten at once: a checkout, not an edit);
 * - or, per file, the tree's root `.gitignore` matches it (what an archive drops).
 * `deleteRestored` turns this off: the absences are then deletions, as before.
 */
import ignore from 'ignore';
import type { SyncNotice } from '../schemas/sync.js';
import { readTreeFile } from './ignore.js';
import type { LocalFile } from './plan.js';
import type { FileState } from './state.js';
import type { SyncTree } from './tree.js';

/** Files kept with their synced content that must all carry a new mtime to call it a checkout. */
const MIN_SHIFTED = 2;
/** Paths named in the notice's detail. */
const NAMED = 5;

export type RestoreReason = 'restored_boot' | 'mtimes_changed' | 'gitignored';

export interface Restore {
  /** Workspace paths missing from the tree that are restored, not deleted. */
  readonly paths: ReadonlySet<string>;
  readonly reason: RestoreReason;
}

/** The tree's root `.gitignore` as a matcher of tree paths, or null when it has none. */
export async function loadGitignore(tree: SyncTree): Promise<((path: string) => boolean) | null> {
  const text = (await readTreeFile(tree, '.gitignore'))?.toString('utf8');
  if (text === undefined) return null;
  const rules = ignore().add(text);
  return (path) => rules.ignores(path);
}

/** True when every file kept with its synced content has a new mtime (at least MIN_SHIFTED). */
function mtimesShifted(
  base: ReadonlyMap<string, FileState>,
  local: ReadonlyMap<string, LocalFile>,
): boolean {
  let kept = 0;
  for (const [path, file] of local) {
    const known = base.get(path);
    if (known === undefined || known.hash !== file.hash) continue;
    if (known.mtimeMs === file.mtimeMs) return false;
    kept++;
  }
  return kept >= MIN_SHIFTED;
}

/** Which absences of `base` paths from `local` are a restore (null: none). */
export function detectRestore(input: {
  readonly base: ReadonlyMap<string, FileState>;
  readonly local: ReadonlyMap<string, LocalFile>;
  readonly restored: boolean;
  readonly gitignored: ((path: string) => boolean) | null;
}): Restore | null {
  const missing = [...input.base.keys()].filter((path) => !input.local.has(path));
  if (missing.length === 0) return null;
  if (input.restored) return { paths: new Set(missing), reason: 'restored_boot' };
  if (mtimesShifted(input.base, input.local)) {
    return { paths: new Set(missing), reason: 'mtimes_changed' };
  }
  const { gitignored } = input;
  if (gitignored === null) return null;
  const paths = new Set(missing.filter((path) => gitignored(path.slice(1))));
  return paths.size === 0 ? null : { paths, reason: 'gitignored' };
}

/** The last synced state without the restored paths: the plan then brings them back. */
export function withoutRestored(
  base: ReadonlyMap<string, FileState>,
  restore: Restore | null,
): ReadonlyMap<string, FileState> {
  if (restore === null) return base;
  return new Map([...base].filter(([path]) => !restore.paths.has(path)));
}

const WHY: Readonly<Record<RestoreReason, string>> = {
  restored_boot: 'the sandbox booted from scratch, an archive or a template',
  mtimes_changed: 'every file the tree kept has a new modification time, as after a checkout',
  gitignored: 'they match the tree’s .gitignore, which an archived sandbox drops',
};

/** The report of a restore: one notice naming the count, the reason and the first paths. */
export function restoreNotice(restore: Restore): SyncNotice {
  const paths = [...restore.paths].sort();
  const named = paths.slice(0, NAMED).join(', ');
  const more = paths.length > NAMED ? ` and ${paths.length - NAMED} more` : '';
  return {
    path: paths[0] ?? '/',
    reason: 'restore_detected',
    detail:
      `${paths.length} file(s) missing from the tree were restored from the workspace, not ` +
      `deleted there, because ${WHY[restore.reason]}: ${named}${more}. To delete them from ` +
      'the workspace, delete them there or sync once with --delete-restored (deleteRestored).',
  };
}
