/**
 * SyncTree over a CodeSandbox sandbox's file system (`client.fs` of @codesandbox/sdk). The SDK
 * moves whole files (no streams), so each transfer holds one file in memory, and files above
 * `maxFileBytes` are refused with TOO_LARGE. Replacing goes through the state folder: the new
 * content is written there, then renamed over the target when the VM's rename replaces an
 * existing file (probed once per tree: the SDK drops rename's `overwrite` flag), or else the old
 * file is first moved aside and put back if the second rename fails. The SDK cannot set mtimes:
 * the mtime the VM gives a written file is recorded instead. Every folder on the way to a path
 * is checked not to be a symbolic link (`isSymlink` of `fs.stat`) before anything is written,
 * removed or read there (see `CsbVm.folders` for what that check can and cannot promise). Only
 * an ENOENT from the VM means "not there": any other failure (a timeout, a dropped connection)
 * throws (codesandbox-errors.ts), so a scan never mistakes an unreachable file for a deleted one.
 * Where the SDK has `fs.batchWrite`, downloads are written in groups: one zip and one shell per
 * group instead of a transfer per file (codesandbox-write-group.ts).
 */
import { eachLimit } from '@satchel/client/each-limit.js';
import {
  STATE_DIR,
  SymlinkInPathError,
  type SyncTree,
  type TreeEntry,
  type TreeWatcher,
  type TreeWriteGroup,
  type WrittenFile,
} from '@satchel/client/sync/tree.js';
import { DEFAULT_CALL_TIMEOUT_MS, isMissing } from './codesandbox-errors.js';
import {
  type CsbConnection,
  type CsbDirEntry,
  type CsbFileSystem,
  collect,
  DEFAULT_MAX_FILE_BYTES,
  tooLarge,
} from './codesandbox-fs.js';
import { CsbVm, codedError, foldersOf } from './codesandbox-vm.js';
import { watchTree } from './codesandbox-watch.js';
import { Batching, CodeSandboxWriteGroup, zipPrefix } from './codesandbox-write-group.js';

export type {
  CsbConnection,
  CsbDirEntry,
  CsbFileSystem,
  CsbStat,
  CsbWatchEvent,
  CsbWatcher,
} from './codesandbox-fs.js';
export { DEFAULT_MAX_FILE_BYTES } from './codesandbox-fs.js';

/** Calls in flight at once while listing: a large tree must not flood the VM's agent. */
const LIST_CONCURRENCY = 16;
export interface CodeSandboxTreeOptions {
  /** Files above this many bytes are refused with TOO_LARGE. Default 64 MiB. */
  readonly maxFileBytes?: number;
  /**
   * Other absolute names of the root in watch events (the VM may report `/project/sandbox/…`
   * for `/project/workspace/…`). Default: `/project/sandbox` when the root is
   * `/project/workspace`.
   */
  readonly watchAliases?: readonly string[];
  /**
   * How long one fs call may take, ms, plus a second per MiB a transfer moves. Default 30 000
   * (the SDK's own limit is 90 s). Past it the call fails with UNAVAILABLE, which stops a sync
   * cycle before it plans anything.
   */
  readonly callTimeoutMs?: number;
  /** The client's connection state: a watch is set up again after the SDK reconnects. */
  readonly connection?: CsbConnection;
  /**
   * The client's `workspacePath`, where the SDK's `fs.batchWrite` unzips: downloads into a
   * root at or below it are written in groups (codesandbox-write-group.ts). Default: the root.
   */
  readonly workspacePath?: string;
}

function parentOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf('/')));
}

/** The tree rooted at `root` (absolute, in the VM: e.g. the client's `workspacePath`). */
export class CodeSandboxTree implements SyncTree {
  readonly description: string;
  private readonly maxFileBytes: number;
  private readonly aliases: readonly string[];
  private readonly vm: CsbVm;
  /** Null: the tree writes one file at a time. */
  private readonly batching: Batching | null;

  constructor(
    private readonly fs: CsbFileSystem,
    readonly root: string,
    sandboxId: string,
    private readonly options: CodeSandboxTreeOptions = {},
  ) {
    this.description = `codesandbox:${sandboxId}:${root}`;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.aliases =
      options.watchAliases ?? (root === '/project/workspace' ? ['/project/sandbox'] : []);
    this.vm = new CsbVm(fs, root, options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
    const prefix = zipPrefix(options.workspacePath ?? root, root);
    this.batching =
      fs.batchWrite === undefined || prefix === null
        ? null
        : new Batching(fs.batchWrite.bind(fs), prefix);
  }

  async exists(): Promise<boolean> {
    return (await this.vm.statOrNull(''))?.type === 'directory';
  }

  /** `folders(parts, false)`, with a missing folder as ENOENT. */
  private async existingFolders(path: string): Promise<void> {
    if (!(await this.vm.folders(foldersOf(path), false))) {
      throw codedError(`${path} does not exist`, 'ENOENT');
    }
  }

  /**
   * Folders are walked only when `readdir` says they are not links, so no re-check per file.
   * One level at a time with at most LIST_CONCURRENCY calls in flight; a folder that vanished
   * meanwhile (ENOENT) is simply empty, any other failure fails the listing.
   */
  async list(prune: (dir: string) => boolean): Promise<TreeEntry[]> {
    const out: TreeEntry[] = [];
    const files: string[] = [];
    let level = [''];
    while (level.length > 0) {
      const next: string[] = [];
      await eachLimit(level, LIST_CONCURRENCY, async (dir) => {
        let entries: CsbDirEntry[];
        try {
          entries = await this.vm.call('readdir', this.vm.abs(dir), () =>
            this.fs.readdir(this.vm.abs(dir)),
          );
        } catch (error) {
          if (isMissing(error)) return;
          throw error;
        }
        for (const e of entries) {
          const path = dir === '' ? e.name : `${dir}/${e.name}`;
          if (e.isSymlink) out.push({ path, type: 'symlink', size: 0, mtimeMs: 0 });
          else if (e.type === 'directory') {
            if (!prune(path)) next.push(path);
          } else files.push(path);
        }
      });
      level = next;
    }
    await eachLimit(files, LIST_CONCURRENCY, async (path) => {
      const entry = await this.vm.entry(path);
      if (entry) out.push(entry);
    });
    return out;
  }

  async stat(path: string): Promise<TreeEntry | null> {
    try {
      if (!(await this.vm.folders(foldersOf(path), false))) return null;
    } catch (error) {
      if (error instanceof SymlinkInPathError) {
        return { path: error.link, type: 'symlink', size: 0, mtimeMs: 0 };
      }
      if ((error as { code?: unknown }).code === 'ENOTDIR') return null;
      throw error;
    }
    return this.vm.entry(path);
  }

  /** `readFile` follows links, so the file itself is checked too. */
  async *read(path: string): AsyncGenerator<Uint8Array> {
    await this.existingFolders(path);
    const entry = await this.vm.entry(path);
    if (entry?.type === 'symlink') throw new SymlinkInPathError(path);
    if (entry === null) throw codedError(`${path} does not exist`, 'ENOENT');
    if (entry.size > this.maxFileBytes) throw tooLarge(path, entry.size, this.maxFileBytes);
    const abs = this.vm.abs(path);
    yield await this.vm.call('readFile', abs, () => this.fs.readFile(abs), entry.size);
  }

  async write(path: string, content: AsyncIterable<Uint8Array>): Promise<WrittenFile> {
    await this.vm.replace(path, await collect(content, this.maxFileBytes, path));
    const st = await this.vm.stat(this.vm.abs(path));
    return { size: st.size, mtimeMs: st.mtime };
  }

  /** Groups sent as one zip where the SDK has `fs.batchWrite` (codesandbox-write-group.ts). */
  writeGroup(): TreeWriteGroup | undefined {
    if (this.batching === null) return undefined;
    return new CodeSandboxWriteGroup(this.vm, this.maxFileBytes, this.batching);
  }

  async remove(path: string): Promise<void> {
    try {
      if (!(await this.vm.folders(foldersOf(path), false))) return;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOTDIR') return; // nothing beneath a file
      throw error;
    }
    if ((await this.vm.entry(path)) === null) return;
    await this.vm.call('remove', this.vm.abs(path), () => this.fs.remove(this.vm.abs(path), false));
    // Folders the file left empty go too; best effort: a failure here loses nothing.
    let dir = parentOf(path);
    while (dir !== '') {
      const abs = this.vm.abs(dir);
      const left = await this.vm.call('readdir', abs, () => this.fs.readdir(abs)).catch(() => null);
      if (left === null || left.length > 0) return;
      await this.vm.tidy('remove', abs, () => this.fs.remove(abs, false));
      dir = parentOf(dir);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    await this.existingFolders(from);
    await this.vm.folders(foldersOf(to), true);
    if ((await this.vm.entry(to)) !== null) throw codedError(`${to} exists`, 'EEXIST');
    await this.vm.call('rename', this.vm.abs(to), () =>
      this.fs.rename(this.vm.abs(from), this.vm.abs(to), false),
    );
  }

  async readState(name: string): Promise<string | null> {
    const path = `${STATE_DIR}/${name}`;
    if (!(await this.vm.folders([STATE_DIR], false)) || (await this.vm.entry(path)) === null) {
      return null;
    }
    const abs = this.vm.abs(path);
    const bytes = await this.vm.call('readFile', abs, () => this.fs.readFile(abs));
    return Buffer.from(bytes).toString('utf8');
  }

  async writeState(name: string, text: string | Iterable<string>): Promise<void> {
    // One write call: the SDK takes the whole content.
    const whole = typeof text === 'string' ? text : [...text].join('');
    await this.vm.replace(`${STATE_DIR}/${name}`, Buffer.from(whole, 'utf8'));
  }

  async appendState(name: string, text: string): Promise<void> {
    // The SDK has no append: read, add, replace (the journal is emptied at every checkpoint).
    await this.writeState(name, `${(await this.readState(name)) ?? ''}${text}`);
  }

  /**
   * Events come in batches; each event may name several paths. A watch lost to a reconnect is
   * set up again, and `onRescan` told that events may have been missed (codesandbox-watch.ts).
   */
  watch(onChange: (paths: readonly string[]) => void, onRescan?: () => void): Promise<TreeWatcher> {
    return watchTree({
      fs: this.fs,
      root: this.root,
      aliases: this.aliases,
      call: (run) => this.vm.call('watch', this.root, run),
      ...(this.options.connection === undefined ? {} : { connection: this.options.connection }),
      onChange,
      ...(onRescan === undefined ? {} : { onRescan }),
    });
  }
}
