/**
 * SyncTree: the file system a sync engine keeps in step with a workspace — a local directory
 * (local-tree.ts) or a sandbox's file system (sandbox/codesandbox-tree.ts). Paths are POSIX,
 * relative to the tree's root, without a leading slash ("src/a.ts"); the engine maps them to
 * workspace paths. Implementations never follow symbolic links below the root (the root itself
 * is the caller's choice): nothing is created, replaced, removed or read through a symlinked
 * folder, so a planted link (`link -> ~/.ssh`) cannot take sync outside the tree.
 */

/** The hidden folder inside every tree holding its sync state; always ignored. */
export const STATE_DIR = '.satchel-sync';
/** The state's files in it (state.ts): the last checkpoint, and what changed since. */
export const STATE_FILE = 'state.json';
export const JOURNAL_FILE = 'journal.jsonl';

/**
 * The name prefix of a file a write group is writing beside its target, renamed into place
 * once durable; always ignored (a crash can leave one behind: the next listing removes it).
 */
export const TEMP_PREFIX = '.satchel-tmp-';

/**
 * Thrown by `read`, `write`, `remove` and `rename` when a folder on the way to the path (or,
 * for `read`, the file itself) is a symbolic link: the call did nothing. `link` is the tree
 * path of that link.
 */
export class SymlinkInPathError extends Error {
  constructor(readonly link: string) {
    super(`${link} is a symbolic link: sync does not go through it`);
    this.name = 'SymlinkInPathError';
  }
}

export interface TreeEntry {
  /** Relative path as stored in the tree (not normalised). */
  readonly path: string;
  /** `other`: a socket, FIFO or device: reported and skipped, like symlinks. */
  readonly type: 'file' | 'symlink' | 'other';
  readonly size: number;
  /** Modification time in ms; with `size` (and `ino`), what change detection compares. */
  readonly mtimeMs: number;
  /**
   * The file's inode number, where the tree has one: a file replaced by another of the same
   * size and mtime (a restored copy, `cp -p`) is hashed again.
   */
  readonly ino?: number;
}

/** Size, mtime (and inode) of a file as it is after a write, so the next scan sees no change. */
export interface WrittenFile {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino?: number;
}

/**
 * Files written together: each `add` writes a temporary file (not yet visible, not yet flushed);
 * `commit` flushes them all to disk at once, then renames each over its target. A file is never
 * visible before it is durable, and the disk is asked to flush once per group, not per file.
 */
export interface TreeWriteGroup {
  /** Bytes added and not yet committed. */
  readonly bytes: number;
  readonly size: number;
  add(path: string, content: AsyncIterable<Uint8Array>): Promise<void>;
  /**
   * Flushes and renames every file added since the last commit; one outcome per file, by path:
   * the written file, or the error that kept it out (SymlinkInPathError as for `write`). Files
   * refused when added come first, the others in the order added.
   */
  commit(): Promise<
    Array<{ path: string; written: WrittenFile } | { path: string; error: unknown }>
  >;
  /** Removes temporary files of a group given up. */
  discard(): Promise<void>;
}

export interface TreeWatcher {
  close(): Promise<void>;
}

export interface SyncTree {
  /** Shown in reports and conflict names' defaults. */
  readonly description: string;
  /** False when the root does not exist (a sandbox that booted without its working tree). */
  exists(): Promise<boolean>;
  /**
   * Every file, symlink and special file beneath the root, in no particular order. Directories
   * are walked (never through a symlink), not listed; `prune(dir)` true skips a directory and
   * everything in it (ignored folders, the state folder).
   */
  list(prune: (dir: string) => boolean): Promise<TreeEntry[]>;
  /**
   * The entry at `path`, or null when nothing is there. When a folder on the way is a symbolic
   * link, the entry of that link (`type: 'symlink'`, its own path): what is behind it is not
   * looked at.
   */
  stat(path: string): Promise<TreeEntry | null>;
  /**
   * `stat` of each of `paths`, in order, where the tree does it more cheaply than one call
   * each (a local tree opens each folder once for all of them). Optional.
   */
  statAll?(paths: readonly string[]): Promise<Array<TreeEntry | null>>;
  /** The bytes of a file, streamed where the tree can. SymlinkInPathError: see above. */
  read(path: string): AsyncIterable<Uint8Array>;
  /**
   * Replaces `path` atomically (a temporary file, flushed, renamed over it), creating parent
   * folders: readers see the old content or the new, never a mix. `mtimeMs` is applied when
   * the tree can set it. A symbolic link at `path` itself is replaced, not followed;
   * SymlinkInPathError for one on the way.
   */
  write(path: string, content: AsyncIterable<Uint8Array>, mtimeMs?: number): Promise<WrittenFile>;
  /** Many files written as one group (TreeWriteGroup); absent or undefined: one by one. */
  writeGroup?(): TreeWriteGroup | undefined;
  /**
   * Removes a file (no error when it is gone), then parent folders it left empty.
   * SymlinkInPathError for a link on the way.
   */
  remove(path: string): Promise<void>;
  /**
   * Renames a file, creating parent folders; fails if `to` exists. SymlinkInPathError for a
   * link on the way to either path.
   */
  rename(from: string, to: string): Promise<void>;
  /** A file of the state folder, or null when missing. The state folder is never a link either. */
  readState(name: string): Promise<string | null>;
  /**
   * Replaces a file of the state folder atomically and durably with `text`, or with its pieces
   * in order (a large state is written without ever being one string).
   */
  writeState(name: string, text: string | Iterable<string>): Promise<void>;
  /** Appends to a file of the state folder (a journal); may lose a torn last line on a crash. */
  appendState(name: string, text: string): Promise<void>;
  /**
   * Calls `onChange` with relative paths (files or folders) that may have changed, and
   * `onRescan` when events may have been missed (the watch was lost and set up again, e.g.
   * after a sandbox connection dropped): the caller should then look at the whole tree.
   */
  watch(onChange: (paths: readonly string[]) => void, onRescan?: () => void): Promise<TreeWatcher>;
}
