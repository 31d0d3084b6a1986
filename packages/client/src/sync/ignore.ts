/**
 * Which paths sync leaves alone: `.satchelignore` at the tree's root (.gitignore syntax, via the
 * `ignore` package), plus rules that always apply: `.git/`, the state folder, a write group's
 * temporary files (`.satchel-tmp-*`), and folders the caller names (Satchel's own data directory when it lies inside the tree).
 */
import ignore from 'ignore';
import { STATE_DIR, type SyncTree, TEMP_PREFIX } from './tree.js';

export const IGNORE_FILE = '.satchelignore';
export const DEFAULT_IGNORES: readonly string[] = ['.git/', `/${STATE_DIR}/`, `${TEMP_PREFIX}*`];

export interface IgnoreRules {
  /** True when the relative path (a file, or a folder when `dir`) is not synced. */
  ignores(path: string, dir?: boolean, defaultsOnly?: boolean): boolean;
  /**
   * True when only the built-in folder rules apply (no `.satchelignore` patterns, no extra
   * ones): a file in a folder the scan did not prune needs no check, and a workspace path only
   * the check of its first folder.
   */
  readonly trivial: boolean;
  /** The `.satchelignore` text the rules were built from ('' for none). */
  readonly text: string;
  /** Equal for equal rules (the text and the extra patterns): what a saved position keys on. */
  readonly key: string;
}

/** A literal relative folder as an anchored pattern (glob characters escaped). */
export function folderPattern(relative: string): string {
  return `/${relative.replace(/[\\*?[\]!#]/g, '\\$&').replace(/\/+$/, '')}/`;
}

/** The bytes of the tree's file at `path`, or null when there is no file there. */
export async function readTreeFile(tree: SyncTree, path: string): Promise<Buffer | null> {
  const entry = await tree.stat(path);
  if (entry?.type !== 'file') return null;
  const pieces: Buffer[] = [];
  for await (const piece of tree.read(path)) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces);
}

/** The rules of `tree`: its `.satchelignore`, the defaults, and `extra` patterns. */
export async function loadIgnoreRules(
  tree: SyncTree,
  extra: readonly string[] = [],
): Promise<IgnoreRules> {
  return ignoreRules((await readTreeFile(tree, IGNORE_FILE))?.toString('utf8') ?? '', extra);
}

/** The rules of a `.satchelignore` text, the defaults, and `extra` patterns. */
export function ignoreRules(text: string, extra: readonly string[] = []): IgnoreRules {
  const rules = ignore().add(text);
  // Checked first so that no `!pattern` in the file can bring them back.
  const always = ignore().add([...DEFAULT_IGNORES, ...extra]);
  const trivial = extra.length === 0 && !/^\s*[^#\s]/m.test(text);
  return {
    trivial,
    text,
    key: JSON.stringify([text, extra]),
    ignores(path, dir = false, defaultsOnly = false) {
      if (defaultsOnly) {
        return (
          path.startsWith(`${STATE_DIR}/`) ||
          path.startsWith('.git/') ||
          path.includes('/.git/') ||
          path.startsWith(TEMP_PREFIX) ||
          path.includes(`/${TEMP_PREFIX}`)
        );
      }
      const target = dir ? `${path}/` : path;
      return always.ignores(target) || rules.ignores(target);
    },
  };
}
