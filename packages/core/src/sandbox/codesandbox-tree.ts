/**
 * SyncTree over a CodeSandbox sandbox's file system (`client.fs` of @codesandbox/sdk). The SDK
 * moves whole files (no streams), so each transfer holds one file in memory; replacing is
 * atomic on the VM (write to the state folder, then rename over the target). The SDK cannot
 * set mtimes: the mtime the VM gives a written file is recorded instead.
 */
import { randomUUID } from 'node:crypto';
import { eachLimit } from '../sync/apply.js';
import {
  STATE_DIR,
  type SyncTree,
  type TreeEntry,
  type TreeWatcher,
  type WrittenFile,
} from '../sync/tree.js';

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
      const entry = await this.stat(path);
      if (entry) out.push(entry);
    });
    return out;
  }

  async stat(path: string): Promise<TreeEntry | null> {
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

  async *read(path: string): AsyncGenerator<Uint8Array> {
    yield await this.fs.readFile(this.abs(path));
  }

  private async replace(target: string, data: Uint8Array): Promise<void> {
    const tmpDir = this.abs(`${STATE_DIR}/tmp`);
    await this.fs.mkdir(tmpDir, true);
    const tmp = `${tmpDir}/${randomUUID()}`;
    await this.fs.writeFile(tmp, data, { create: true, overwrite: true });
    const parent = parentOf(target);
    if (parent !== '') await this.fs.mkdir(parent, true);
    await this.fs.rename(tmp, target, true);
  }

  async write(path: string, content: AsyncIterable<Uint8Array>): Promise<WrittenFile> {
    await this.replace(this.abs(path), await collect(content));
    const st = await this.fs.stat(this.abs(path));
    return { size: st.size, mtimeMs: st.mtime };
  }

  async remove(path: string): Promise<void> {
    if ((await this.stat(path)) === null) return;
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
    if ((await this.stat(to)) !== null) {
      throw Object.assign(new Error(`${to} exists`), { code: 'EEXIST' });
    }
    const parent = parentOf(to);
    if (parent !== '') await this.fs.mkdir(this.abs(parent), true);
    await this.fs.rename(this.abs(from), this.abs(to), false);
  }

  async readState(name: string): Promise<string | null> {
    const path = `${STATE_DIR}/${name}`;
    if ((await this.stat(path)) === null) return null;
    return Buffer.from(await this.fs.readFile(this.abs(path))).toString('utf8');
  }

  async writeState(name: string, text: string): Promise<void> {
    await this.replace(this.abs(`${STATE_DIR}/${name}`), Buffer.from(text, 'utf8'));
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
