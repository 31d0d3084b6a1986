/**
 * SyncTree on a local directory: node:fs, atomic replace by temp + fsync + rename, chokidar.
 * Every path below the root is named through a verified folder (folders.ts): never through a
 * symbolic link, race-free where the platform allows (see there for the choice).
 */
import { isAscii } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { constants, lstatSync } from 'node:fs';
import {
  appendFile,
  lstat,
  open,
  readFile,
  rename,
  rmdir,
  stat,
  unlink,
  utimes,
} from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import {
  at,
  type Folder,
  type FolderRun,
  Folders,
  flushFoldersAt,
  folderHandlesWork,
} from './folders.js';
import { fsError, isMissing, READ_FLAGS, readTreeFile } from './local-read.js';
import { listTree } from './local-scan.js';
import { LocalWriteGroup, split, writeAll } from './local-write-group.js';
import {
  STATE_DIR,
  SymlinkInPathError,
  type SyncTree,
  TEMP_PREFIX,
  type TreeEntry,
  type TreeWatcher,
  type TreeWriteGroup,
  type WrittenFile,
} from './tree.js';

const APPEND_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** Writes `content` to a new file at `path` and flushes it to disk. */
async function writeDurably(path: string, content: AsyncIterable<Uint8Array>): Promise<void> {
  const handle = await open(path, 'wx', 0o644);
  try {
    await writeAll(handle, content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function* encoded(text: string | Iterable<string>): AsyncGenerator<Uint8Array> {
  if (typeof text === 'string') yield Buffer.from(text, 'utf8');
  else for (const piece of text) yield Buffer.from(piece, 'utf8');
}

async function syncDir(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface LocalTreeOptions {
  /**
   * Name files relative to open folder descriptors (`/proc/self/fd`), which no link swapped in
   * later can redirect. Default: where the platform supports it (Linux). False checks each
   * folder with lstat instead, as other platforms do (the tests run both).
   */
  readonly folderHandles?: boolean;
}

/** A directory on this machine as a SyncTree. */
export class LocalTree implements SyncTree {
  readonly description: string;
  private readonly folders: Folders;
  /**
   * Folders removals changed since the state was last written to, by path: flushed before it
   * is (`#flushRemovals`), so a power cut cannot keep a deletion the state recorded and undo the
   * removal itself, which the next scan would take for a new file to upload.
   */
  readonly #removedIn = new Set<string>();

  constructor(
    readonly root: string,
    options: LocalTreeOptions = {},
  ) {
    this.description = root;
    this.folders = new Folders(root, options.folderHandles ?? folderHandlesWork());
  }

  async exists(): Promise<boolean> {
    try {
      return (await stat(this.root)).isDirectory();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  /** Every entry beneath the root, walked through verified folders (local-scan.ts). */
  async list(prune: (dir: string) => boolean): Promise<TreeEntry[]> {
    return listTree(this.folders, prune);
  }

  stat(path: string): Promise<TreeEntry | null> {
    return this.#stat(path);
  }

  /** Each folder on the way opened once for all of `paths` (a `FolderRun`). */
  async statAll(paths: readonly string[]): Promise<Array<TreeEntry | null>> {
    const run = this.folders.run();
    try {
      const out: Array<TreeEntry | null> = [];
      for (const path of paths) out.push(await this.#stat(path, run));
      return out;
    } finally {
      run.close();
    }
  }

  async #stat(path: string, run?: FolderRun): Promise<TreeEntry | null> {
    const { parts, name } = split(path);
    try {
      return await this.folders.find(
        parts,
        async (folder): Promise<TreeEntry | null> => {
          const st = lstatSync(at(folder, name));
          if (st.isSymbolicLink()) return { path, type: 'symlink', size: 0, mtimeMs: st.mtimeMs };
          if (st.isDirectory()) return null;
          const type = st.isFile() ? 'file' : 'other';
          return { path, type, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
        },
        run,
      );
    } catch (error) {
      if (error instanceof SymlinkInPathError) {
        return { path: error.link, type: 'symlink', size: 0, mtimeMs: 0 };
      }
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /**
   * Opened without following a link, the file itself included (O_NOFOLLOW). A file smaller
   * than WHOLE_READ_MAX is read synchronously in one call, into a buffer of its size and a byte
   * more (a short read is the end of a regular file): as for `list`, a thread-pool round trip
   * per open, stat, read and close cost more than the calls (2.5× the time, 4× the CPU for
   * 10,000 files of 10 KiB). Larger files, and one that grew since its size was taken, stream.
   */
  read(path: string): AsyncGenerator<Uint8Array> {
    return readTreeFile(this.folders, path);
  }

  /**
   * The target's folders are opened (made) before the content is consumed, so the rename
   * lands in the folders verified then, whatever happens to their paths during the transfer.
   * The rename, and any folder made for it, is flushed before the write is reported
   * (`FolderRun.flushChanged`).
   */
  async write(
    path: string,
    content: AsyncIterable<Uint8Array>,
    mtimeMs?: number,
  ): Promise<WrittenFile> {
    const { parts, name } = split(path);
    const run = this.folders.run();
    try {
      return await this.folders.make(
        [STATE_DIR, 'tmp'],
        (tmpDir) =>
          this.folders.make(
            parts,
            async (folder) => {
              const tmp = at(tmpDir, randomUUID());
              const target = at(folder, name);
              try {
                await writeDurably(tmp, content);
                if (mtimeMs !== undefined) await utimes(tmp, new Date(), new Date(mtimeMs));
                await rename(tmp, target);
              } catch (error) {
                await unlink(tmp).catch(() => undefined);
                throw error;
              }
              run.changed(folder);
              await run.flushChanged('fsync');
              const st = await lstat(target);
              return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
            },
            run,
          ),
        run,
      );
    } finally {
      run.close();
    }
  }

  writeGroup(): TreeWriteGroup {
    return new LocalWriteGroup(this.folders);
  }

  async remove(path: string): Promise<void> {
    const { parts, name } = split(path);
    await this.folders.find(parts, async (folder, chain) => {
      /** The folder the last removal was made in. */
      let changed: Folder | null = null;
      try {
        await unlink(at(folder, name));
        changed = folder;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
      try {
        // Folders the workspace no longer has go too; stop at the first one that is not empty.
        for (let i = parts.length; i > 0; i--) {
          const parent = chain[i - 1] as Folder;
          try {
            await rmdir(at(parent, parts[i - 1] as string));
          } catch {
            return;
          }
          changed = parent;
        }
      } finally {
        if (changed !== null) this.#removedIn.add(changed.named);
      }
    });
  }

  async #flushRemovals(): Promise<void> {
    if (this.#removedIn.size === 0) return;
    const paths = [...this.#removedIn];
    this.#removedIn.clear();
    await flushFoldersAt(paths);
  }

  async rename(from: string, to: string): Promise<void> {
    const source = split(from);
    const dest = split(to);
    const run = this.folders.run();
    try {
      const done = await this.folders.find(
        source.parts,
        (sourceFolder) =>
          this.folders.make(
            dest.parts,
            async (folder) => {
              const target = at(folder, dest.name);
              if ((await lstat(target).catch(() => null)) !== null) {
                throw fsError(`${to} exists`, 'EEXIST');
              }
              await rename(at(sourceFolder, source.name), target);
              run.changed(folder);
              run.changed(sourceFolder);
              await run.flushChanged('fsync');
              return true;
            },
            run,
          ),
        run,
      );
      if (done === null) throw fsError(`${from} does not exist`, 'ENOENT');
    } finally {
      run.close();
    }
  }

  async readState(name: string): Promise<string | null> {
    try {
      const bytes = await this.folders.find([STATE_DIR], (folder) =>
        readFile(at(folder, name), { flag: READ_FLAGS }),
      );
      // Mostly ASCII (hashes, numbers, most names), which decodes ~40× faster as latin1, and
      // the same: 5–9 ms of a 10,000-file rescan's state otherwise.
      return bytes === null ? null : bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async writeState(name: string, text: string | Iterable<string>): Promise<void> {
    await this.#flushRemovals();
    await this.folders.make([STATE_DIR, 'tmp'], async (tmpDir, chain) => {
      const dir = chain[1] as Folder;
      const tmp = at(tmpDir, randomUUID());
      try {
        await writeDurably(tmp, encoded(text));
        await rename(tmp, at(dir, name));
      } catch (error) {
        await unlink(tmp).catch(() => undefined);
        throw error;
      }
      await syncDir(dir.path);
    });
  }

  async appendState(name: string, text: string): Promise<void> {
    await this.#flushRemovals();
    await this.folders.make([STATE_DIR], (folder) =>
      appendFile(at(folder, name), text, { encoding: 'utf8', flag: APPEND_FLAGS }),
    );
  }

  async watch(onChange: (paths: readonly string[]) => void): Promise<TreeWatcher> {
    const state = join(this.root, STATE_DIR);
    // Loaded here: a program that syncs once (or never) does not pay for the watcher.
    const { watch } = await import('chokidar');
    const watcher = watch(this.root, {
      ignoreInitial: true,
      followSymlinks: false,
      ignored: (path: string) =>
        path === state || path.startsWith(state + sep) || basename(path).startsWith(TEMP_PREFIX),
    });
    const report = (path: string): void => {
      const rel = relative(this.root, path).split(sep).join('/');
      if (rel !== '' && !rel.startsWith('..')) onChange([rel]);
    };
    for (const event of ['add', 'change', 'unlink', 'addDir', 'unlinkDir'] as const) {
      watcher.on(event, report);
    }
    await new Promise<void>((resolve, reject) => {
      watcher.once('ready', resolve);
      watcher.once('error', reject);
    });
    return { close: () => watcher.close() };
  }
}
