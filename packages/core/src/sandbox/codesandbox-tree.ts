/**
 * SyncTree over a CodeSandbox sandbox's file system (`client.fs` of @codesandbox/sdk). The SDK
 * moves whole files (no streams), so each transfer holds one file in memory; replacing is
 * atomic on the VM (write to the state folder, then rename over the target). The SDK cannot
 * set mtimes: the mtime the VM gives a written file is recorded instead. Every folder on the way
 * to a path is checked not to be a symbolic link (`isSymlink` of `fs.stat`) before anything is
 * written, removed or read there (see `folders` for what that check can and cannot promise).
 */
import { randomUUID } from 'node:crypto';
import { eachLimit } from '@satchel/client/each-limit.js';
import {
  STATE_DIR,
  SymlinkInPathError,
  type SyncTree,
  type TreeEntry,
  type TreeWatcher,
  type WrittenFile,
} from '@satchel/client/sync/tree.js';

/** `fs.stat` of the SDK (FSStatResult). */
export interface CsbStat {
  readonly type: 'file' | 'directory';
  readonly isSymlink: boolean;
  readonly size: number;
  readonly mtime: number;
}

/** An entry of `fs.readdir` (ReaddirEntry). */
export interface CsbDirEntry {
  readonly name: string;
  readonly type: 'file' | 'directory';
  readonly isSymlink: boolean;
}

export interface CsbWatchEvent {
  readonly paths: string[];
  readonly type: 'add' | 'change' | 'remove';
}

export interface CsbWatcher {
  dispose(): void;
  onEvent(listener: (event: CsbWatchEvent) => void): { dispose(): void };
}

/**
 * The part of the SDK's `client.fs` (class FileSystem) sync uses, declared here because the
 * SDK's .d.ts files do not resolve under NodeNext; test-support/codesandbox-stand-in.ts proves
 * with the SDK's own types (tsconfig.sdk.json) that the real client satisfies it.
 */
export interface CsbFileSystem {
  readdir(path: string): Promise<CsbDirEntry[]>;
  readFile(path: string): Promise<Uint8Array>;
  writeFile(
    path: string,
    content: Uint8Array,
    opts?: { create?: boolean; overwrite?: boolean },
  ): Promise<void>;
  stat(path: string): Promise<CsbStat>;
  rename(from: string, to: string, overwrite?: boolean): Promise<void>;
  remove(path: string, recursive?: boolean): Promise<void>;
  mkdir(path: string, recursive?: boolean): Promise<void>;
  watch(
    path: string,
    options?: { readonly recursive?: boolean; readonly excludes?: readonly string[] },
  ): Promise<CsbWatcher>;
}

const STAT_CONCURRENCY = 16;

function parentOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf('/')));
}

/** The folders of a tree path ("a/b/c.txt" → ["a", "b"]). */
function foldersOf(path: string): string[] {
  return path.split('/').slice(0, -1);
}

function fsError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

async function collect(content: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const pieces: Buffer[] = [];
  for await (const piece of content) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces);
}

/** The tree rooted at `root` (absolute, in the VM: e.g. the client's `workspacePath`). */
export class CodeSandboxTree implements SyncTree {
  readonly description: string;

  constructor(
    private readonly fs: CsbFileSystem,
    readonly root: string,
    sandboxId: string,
  ) {
    this.description = `codesandbox:${sandboxId}:${root}`;
  }

  private abs(path: string): string {
    return path === '' ? this.root : `${this.root}/${path}`;
  }

  async exists(): Promise<boolean> {
    try {
      return (await this.fs.stat(this.root)).type === 'directory';
    } catch {
      return false;
    }
  }

  /**
   * Checks each folder of `parts` below the root: SymlinkInPathError for a link, ENOTDIR for
   * anything else but a folder. `create` makes missing ones one level at a time (the first
   * with its parents: the root is the caller's) and checks each after making it, so a link
   * planted in between is refused too. False when one is missing and `create` is false.
   *
   * Race-safety: the SDK names files by path only (no descriptors), so this is check-then-use:
   * a process inside the VM could swap a checked folder for a link before the call that
   * follows. Such a process has the VM already, so the window gives it nothing it lacks; what
   * the check stops is a link planted in advance (a repository, an earlier session).
   */
  private async folders(parts: readonly string[], create: boolean): Promise<boolean> {
    for (let i = 0; i < parts.length; i++) {
      const rel = parts.slice(0, i + 1).join('/');
      let st = await this.fs.stat(this.abs(rel)).catch(() => null);
      if (st === null) {
        if (!create) return false;
        // Fails when it exists meanwhile: the stat below tells what is there.
        await this.fs.mkdir(this.abs(rel), i === 0).catch(() => undefined);
        st = await this.fs.stat(this.abs(rel)).catch(() => null);
        if (st === null) throw fsError(`${rel} could not be created`, 'ENOENT');
      }
      if (st.isSymlink) throw new SymlinkInPathError(rel);
      if (st.type !== 'directory') throw fsError(`${rel} is not a folder`, 'ENOTDIR');
    }
    return true;
  }

  /** `folders(parts, false)`, with a missing folder as ENOENT. */
  private async existingFolders(path: string): Promise<void> {
    if (!(await this.folders(foldersOf(path), false))) {
      throw fsError(`${path} does not exist`, 'ENOENT');
    }
  }

  /** The entry at `path` as the SDK reports it; its folders are the caller's to check. */
  private async entry(path: string): Promise<TreeEntry | null> {
    try {
      const st = await this.fs.stat(this.abs(path));
      if (st.isSymlink) return { path, type: 'symlink', size: 0, mtimeMs: st.mtime };
      if (st.type === 'directory') return null;
      return { path, type: 'file', size: st.size, mtimeMs: st.mtime };
    } catch {
      // The SDK reports a missing path as a failed call.
      return null;
    }
  }

  /** Folders are walked only when `readdir` says they are not links, so no re-check per file. */
  async list(prune: (dir: string) => boolean): Promise<TreeEntry[]> {
    const out: TreeEntry[] = [];
    const files: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries: CsbDirEntry[];
      try {
        entries = await this.fs.readdir(this.abs(dir));
      } catch {
        return;
      }
      await Promise.all(
        entries.map(async (e) => {
          const path = dir === '' ? e.name : `${dir}/${e.name}`;
          if (e.isSymlink) out.push({ path, type: 'symlink', size: 0, mtimeMs: 0 });
          else if (e.type === 'directory') {
            if (!prune(path)) await walk(path);
          } else files.push(path);
        }),
      );
    };
    await walk('');
    await eachLimit(files, STAT_CONCURRENCY, async (path) => {
      const entry = await this.entry(path);
      if (entry) out.push(entry);
    });
    return out;
  }

  async stat(path: string): Promise<TreeEntry | null> {
    try {
      if (!(await this.folders(foldersOf(path), false))) return null;
    } catch (error) {
      if (error instanceof SymlinkInPathError) {
        return { path: error.link, type: 'symlink', size: 0, mtimeMs: 0 };
      }
      return null;
    }
    return this.entry(path);
  }

  /** `readFile` follows links, so the file itself is checked too. */
  async *read(path: string): AsyncGenerator<Uint8Array> {
    await this.existingFolders(path);
    if ((await this.entry(path))?.type === 'symlink') throw new SymlinkInPathError(path);
    yield await this.fs.readFile(this.abs(path));
  }

  /** Writes `data` to the state folder, checks the target's folders, renames it over `path`. */
  private async replace(path: string, data: Uint8Array): Promise<void> {
    await this.folders([STATE_DIR, 'tmp'], true);
    const tmp = this.abs(`${STATE_DIR}/tmp/${randomUUID()}`);
    await this.fs.writeFile(tmp, data, { create: true, overwrite: true });
    try {
      await this.folders(foldersOf(path), true);
      await this.fs.rename(tmp, this.abs(path), true);
    } catch (error) {
      await this.fs.remove(tmp, false).catch(() => undefined);
      throw error;
    }
  }

  async write(path: string, content: AsyncIterable<Uint8Array>): Promise<WrittenFile> {
    await this.replace(path, await collect(content));
    const st = await this.fs.stat(this.abs(path));
    return { size: st.size, mtimeMs: st.mtime };
  }

  async remove(path: string): Promise<void> {
    try {
      if (!(await this.folders(foldersOf(path), false))) return;
    } catch (error) {
      if (error instanceof SymlinkInPathError) throw error;
      return; // a file where a folder should be: nothing to remove beneath it
    }
    if ((await this.entry(path)) === null) return;
    await this.fs.remove(this.abs(path), false);
    let dir = parentOf(path);
    while (dir !== '') {
      const left = await this.fs.readdir(this.abs(dir)).catch(() => null);
      if (left === null || left.length > 0) return;
      await this.fs.remove(this.abs(dir), false);
      dir = parentOf(dir);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    await this.existingFolders(from);
    await this.folders(foldersOf(to), true);
    if ((await this.entry(to)) !== null) throw fsError(`${to} exists`, 'EEXIST');
    await this.fs.rename(this.abs(from), this.abs(to), false);
  }

  async readState(name: string): Promise<string | null> {
    const path = `${STATE_DIR}/${name}`;
    if (!(await this.folders([STATE_DIR], false)) || (await this.entry(path)) === null) {
      return null;
    }
    return Buffer.from(await this.fs.readFile(this.abs(path))).toString('utf8');
  }

  async writeState(name: string, text: string): Promise<void> {
    await this.replace(`${STATE_DIR}/${name}`, Buffer.from(text, 'utf8'));
  }

  async appendState(name: string, text: string): Promise<void> {
    // The SDK has no append: read, add, replace (the journal is emptied at every checkpoint).
    await this.writeState(name, `${(await this.readState(name)) ?? ''}${text}`);
  }

  async watch(onChange: (paths: readonly string[]) => void): Promise<TreeWatcher> {
    const watcher = await this.fs.watch(this.root, {
      recursive: true,
      excludes: [`${STATE_DIR}/**`, '.git/**'],
    });
    const prefix = `${this.root}/`;
    const subscription = watcher.onEvent((event) => {
      const paths = event.paths
        .map((p) => (p.startsWith(prefix) ? p.slice(prefix.length) : p.startsWith('/') ? null : p))
        .filter((p): p is string => p !== null && p !== '' && !p.startsWith(STATE_DIR));
      if (paths.length > 0) onChange(paths);
    });
    return {
      close: async () => {
        subscription.dispose();
        watcher.dispose();
      },
    };
  }
}
