/**
 * Folders beneath a local tree's root, reached without following a symbolic link at any level
 * (the root itself is the caller's choice and may be one). LocalTree names every file through
 * them, so a planted link (`link -> ~/.ssh`, or `a/b` with `b` a link) cannot take a write, a
 * removal or a read outside the tree.
 *
 * Race-safety, the choice made: each folder is opened (O_DIRECTORY | O_NOFOLLOW) relative to
 * the descriptor of the verified folder above it, and every operation names its target relative
 * to the last descriptor; not "lstat the path, then use it". A check-then-use leaves a window in
 * which any process that can write in the tree (an agent in a container whose folder the host
 * syncs) swaps a checked folder for a link; a folder swapped after it was opened still receives
 * the write itself, wherever it was moved, never the link's target. Node has no openat(2), but
 * on Linux the kernel resolves `/proc/self/fd/<fd>/<name>` inside the folder that descriptor
 * holds: openat under another name, usable by every fs call. Where that does not work (macOS,
 * the BSDs: no /proc), each folder is lstat'ed on the way down and verified again after it is
 * created; the window between that check and the use remains there (docs/sync.md says so).
 * One read-only exception, for speed: a scan stats a folder's entries by name from the root
 * and checks afterwards that the names still lead to the folder it holds (`stillNamed`).
 *
 * Folders are opened with synchronous calls: one open per level, microseconds on a local disk,
 * and one code path for scans (which are synchronous on purpose, see LocalTree.list) and writes.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  statSync,
} from 'node:fs';
import { flushFiles, type OpenFile, SYNCFS_FROM } from './flush-files.js';
import { SymlinkInPathError } from './tree.js';

/** A verified folder of the tree. */
export interface Folder {
  /** This folder for any fs call: `/proc/self/fd/<fd>`, or the checked path. */
  readonly path: string;
  /** The descriptor held open (handle mode), closed by Folders. */
  readonly fd: number | null;
  /**
   * This folder by its names from the root. Cheaper for the kernel to resolve than `path`, but
   * resolved through whatever those names are at the time: see `Folders.stillNamed`.
   */
  readonly named: string;
}

/** The entry `name` of `folder`, for any fs call; a link there is not followed by lstat, etc. */
export function at(folder: Folder, name: string): string {
  return `${folder.path}/${name}`;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const PROC_FD = '/proc/self/fd';

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function notADirectory(path: string): Error {
  return Object.assign(new Error(`${path} is not a folder`), { code: 'ENOTDIR' });
}

let handlesWork: boolean | undefined;

/** Whether `/proc/self/fd/<fd>/<name>` resolves inside the folder a descriptor holds (Linux). */
export function folderHandlesWork(): boolean {
  if (handlesWork === undefined) {
    try {
      const fd = openSync('/', constants.O_RDONLY | constants.O_DIRECTORY);
      try {
        handlesWork = statSync(`${PROC_FD}/${fd}/.`).ino === fstatSync(fd).ino;
      } finally {
        closeSync(fd);
      }
    } catch {
      handlesWork = false;
    }
  }
  return handlesWork;
}

/** Opens the folders of one tree; see the module header. */
export class Folders {
  constructor(
    private readonly root: string,
    /** Descriptors through /proc/self/fd (race-free) or lstat checks (see the header). */
    private readonly handles: boolean,
  ) {}

  /** The root (a link there is followed: the caller chose it). ENOENT when it is missing. */
  openRoot(): Folder {
    if (!this.handles) {
      if (!statSync(this.root).isDirectory()) throw notADirectory(this.root);
      return { path: this.root, fd: null, named: this.root };
    }
    const fd = openSync(this.root, constants.O_RDONLY | constants.O_DIRECTORY);
    return { path: `${PROC_FD}/${fd}`, fd, named: this.root };
  }

  /**
   * The folder `name` of `parent`; `rel` is its tree path, for errors. SymlinkInPathError when
   * it is a link, ENOTDIR when it is something else but a folder, ENOENT when missing.
   */
  openChild(parent: Folder, name: string, rel: string): Folder {
    const path = at(parent, name);
    const named = `${parent.named}/${name}`;
    if (!this.handles) {
      const st = lstatSync(path);
      if (st.isSymbolicLink()) throw new SymlinkInPathError(rel);
      if (!st.isDirectory()) throw notADirectory(rel);
      return { path, fd: null, named };
    }
    try {
      const fd = openSync(path, DIR_FLAGS);
      return { path: `${PROC_FD}/${fd}`, fd, named };
    } catch (error) {
      // O_DIRECTORY | O_NOFOLLOW on a link fails with ENOTDIR on Linux (ELOOP elsewhere):
      // lstat only tells which refusal to report, the open already refused.
      const code = codeOf(error);
      if ((code === 'ENOTDIR' || code === 'ELOOP') && isLink(path)) {
        throw new SymlinkInPathError(rel);
      }
      throw error;
    }
  }

  /**
   * Whether `folder.named` still leads to the folder its descriptor holds. A scan stats a
   * folder's entries by name, then asks this: when it is true, no folder on the way was a link
   * or another folder at the time of asking. A swap in between that was undone again can only
   * have shown, for some names, the stats of files elsewhere: a file whose stats differ from
   * the state's is read through the descriptor, and a name found missing is asked again
   * through it (LocalTree.list). Always true without descriptors, where `named` is `path`.
   */
  stillNamed(folder: Folder): boolean {
    if (folder.fd === null) return true;
    const held = fstatSync(folder.fd);
    const now = statSync(folder.named, { throwIfNoEntry: false });
    return now?.ino === held.ino && now.dev === held.dev;
  }

  close(folder: Folder): void {
    if (folder.fd !== null) closeSync(folder.fd);
  }

  /**
   * The chain of folders from the root down to `parts` (root first), each opened without
   * following a link. `create` makes missing folders (the root included), one level at a
   * time, and opens each after making it, so a link planted meanwhile is refused too. Null
   * when a folder is missing and `create` is false. Throws as `openChild`. With `run`, the
   * folders it holds are taken from it and those opened are left to it (`FolderRun`).
   */
  private open(parts: readonly string[], create: true, run?: FolderRun): Folder[];
  private open(parts: readonly string[], create: boolean, run?: FolderRun): Folder[] | null;
  private open(parts: readonly string[], create: boolean, run?: FolderRun): Folder[] | null {
    let root: Folder;
    try {
      root = run?.held('') ?? this.openRoot();
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw error;
      if (!create) return null;
      mkdirSync(this.root, { recursive: true });
      root = this.openRoot();
    }
    run?.keep('', root);
    const chain = [root];
    try {
      for (const [i, name] of parts.entries()) {
        const parent = chain[i] as Folder;
        const rel = parts.slice(0, i + 1).join('/');
        const held = run?.held(rel);
        if (held) {
          chain.push(held);
          continue;
        }
        if (!create && run?.lacks(rel)) {
          this.closeAll(chain, run);
          return null;
        }
        try {
          chain.push(this.openChild(parent, name, rel));
        } catch (error) {
          if (codeOf(error) !== 'ENOENT') throw error;
          if (!create) {
            run?.missed(rel);
            this.closeAll(chain, run);
            return null;
          }
          try {
            mkdirSync(at(parent, name));
            run?.changed(parent);
          } catch (made) {
            if (codeOf(made) !== 'EEXIST') throw made;
          }
          chain.push(this.openChild(parent, name, rel));
        }
        run?.keep(rel, chain[i + 1] as Folder);
      }
      return chain;
    } catch (error) {
      this.closeAll(chain, run);
      throw error;
    }
  }

  /** Closes the folders of `chain`, but those `run` holds. */
  private closeAll(chain: readonly Folder[], run?: FolderRun): void {
    for (const folder of chain) if (!run?.holds(folder)) this.close(folder);
  }

  private async using<T>(
    chain: readonly Folder[],
    work: (folder: Folder, chain: readonly Folder[]) => Promise<T>,
    run?: FolderRun,
  ): Promise<T> {
    try {
      return await work(chain[chain.length - 1] as Folder, chain);
    } finally {
      this.closeAll(chain, run);
    }
  }

  /**
   * Runs `work` in the existing folder `parts` (see `open`); null when a folder is missing. With
   * `run`, in the folders it holds, as `make`.
   */
  async find<T>(
    parts: readonly string[],
    work: (folder: Folder, chain: readonly Folder[]) => Promise<T>,
    run?: FolderRun,
  ): Promise<T | null> {
    const chain = this.open(parts, false, run);
    return chain === null ? null : this.using(chain, work, run);
  }

  /**
   * Runs `work` in the folder `parts`, made if missing (see `open`); with `run`, in the folders
   * it holds, opening only those it does not.
   */
  async make<T>(
    parts: readonly string[],
    work: (folder: Folder, chain: readonly Folder[]) => Promise<T>,
    run?: FolderRun,
  ): Promise<T> {
    return this.using(this.open(parts, true, run), work, run);
  }

  /** A run of `make` or `find` calls in the same few folders (`FolderRun`); close it when done. */
  run(): FolderRun {
    return new FolderRun((folder) => this.close(folder));
  }
}

/** Folders a run holds at most; beyond, each call opens and closes its own, as without a run. */
const RUN_FOLDERS = 256;

/**
 * Folders kept open across a run of calls in the same few folders (the files of one write
 * group, then their renames): each is opened once, by the first call that needs it, and closed
 * by `close()`. Without it the 512 files of a group in one folder opened the root and that
 * folder 512 times each. The checks are `open`'s; what a run gives up is only that a folder
 * moved, or replaced by a link, after its first call still gets the run's later files, as it
 * already does for one call holding it (module header), and that a folder its finds saw
 * missing stays missing to them (the stats before a download: a target whose folder appears
 * meanwhile is replaced, as one that appears after its check is). So a run is short, and closed.
 */
export class FolderRun {
  readonly #held = new Map<string, Folder>();
  readonly #folders = new Set<Folder>();
  /** Tree paths found without a folder, as far as the run looked. */
  readonly #missing = new Set<string>();
  /** Held folders whose entries changed since the last `flushChanged`. */
  readonly #changed = new Set<Folder>();

  constructor(private readonly closeFolder: (folder: Folder) => void) {}

  /** The folder at tree path `rel` ('' for the root), when this run holds it. */
  held(rel: string): Folder | undefined {
    return this.#held.get(rel);
  }

  holds(folder: Folder): boolean {
    return this.#folders.has(folder);
  }

  /** Whether the run found no folder at `rel` (looking, not making: `find`). */
  lacks(rel: string): boolean {
    return this.#missing.has(rel);
  }

  /** Notes that there is no folder at `rel`: the run's later finds beneath it look no more. */
  missed(rel: string): void {
    if (this.#missing.size < RUN_FOLDERS) this.#missing.add(rel);
  }

  /** Holds `folder`, found at `rel`, until `close()` (unless the run holds enough already). */
  keep(rel: string, folder: Folder): void {
    this.#missing.delete(rel);
    if (this.#held.has(rel) || this.#held.size >= RUN_FOLDERS) return;
    this.#held.set(rel, folder);
    this.#folders.add(folder);
  }

  /**
   * Notes that `folder` gained an entry (a file renamed into it, a folder made in it), to be
   * made durable by `flushChanged`; at once when the run does not hold it, as it is closed
   * after its call.
   */
  changed(folder: Folder): void {
    if (this.#folders.has(folder)) this.#changed.add(folder);
    else withDescriptor(folder, fsyncSync);
  }

  /**
   * Makes the entries of the folders changed in this run durable: until then a rename is only
   * in the kernel's memory and, on a file system that does not write metadata in order (ext4
   * without a journal, btrfs), can be lost at a power cut while a later write is kept: a state
   * that recorded the file would then read its absence as a deletion. `syncfs` when the run's
   * files just took it (`flushFiles`), else an fsync per folder.
   */
  async flushChanged(after: 'syncfs' | 'fsync'): Promise<void> {
    const paths = [...this.#changed].map((folder) => folder.path);
    await flushFoldersAt(paths, after === 'syncfs' ? 1 : SYNCFS_FROM);
    this.#changed.clear();
  }

  close(): void {
    for (const folder of this.#folders) this.closeFolder(folder);
    this.#held.clear();
    this.#folders.clear();
    this.#missing.clear();
    this.#changed.clear();
  }
}

/**
 * Makes the entries of the folders at `paths` durable, opening each by its path (one that is
 * gone needs nothing; a folder's `path` reopens its held descriptor where there is one), by
 * `flushFiles` with its threshold `from`. A folder swapped for another meanwhile can only take
 * the flush in its place.
 */
export async function flushFoldersAt(
  paths: Iterable<string>,
  from: number = SYNCFS_FROM,
): Promise<void> {
  const opened: OpenFile[] = [];
  try {
    for (const path of paths) {
      try {
        const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY);
        opened.push({ fd, dev: fstatSync(fd).dev });
      } catch (error) {
        if (codeOf(error) !== 'ENOENT') throw error;
      }
    }
    await flushFiles(opened, from);
  } finally {
    for (const { fd } of opened) closeSync(fd);
  }
}

/** Runs `use` on a descriptor of `folder`: its own, or one opened for the call. */
function withDescriptor<T>(folder: Folder, use: (fd: number) => T): T {
  if (folder.fd !== null) return use(folder.fd);
  const fd = openSync(folder.path, DIR_FLAGS);
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

function isLink(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
}
