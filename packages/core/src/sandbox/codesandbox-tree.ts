/**
 * SyncTree over a CodeSandbox sandbox's file system (`client.fs` of @codesandbox/sdk). The SDK
 * moves whole files (no streams), so each transfer holds one file in memory, and files above
 * `maxFileBytes` are refused with TOO_LARGE. Replacing goes through the state folder: the new
 * content is written there, then renamed over the target when the VM's rename replaces an
 * existing file (probed once per tree: the SDK drops rename's `overwrite` flag), or else the old
 * file is first moved aside and put back if the second rename fails. The SDK cannot set mtimes:
 * the mtime the VM gives a written file is recorded instead. Every folder on the way to a path
 * is checked not to be a symbolic link (`isSymlink` of `fs.stat`) before anything is written,
 * removed or read there (see `folders` for what that check can and cannot promise). Only an
 * ENOENT from the VM means "not there": any other failure (a timeout, a dropped connection)
 * throws (codesandbox-errors.ts), so a scan never mistakes an unreachable file for a deleted one.
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
import { boundedCall, DEFAULT_CALL_TIMEOUT_MS, isMissing } from './codesandbox-errors.js';
import {
  type CsbConnection,
  type CsbDirEntry,
  type CsbFileSystem,
  type CsbStat,
  collect,
  DEFAULT_MAX_FILE_BYTES,
  mtimeMs,
  tooLarge,
} from './codesandbox-fs.js';
import { watchTree } from './codesandbox-watch.js';

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
}

function parentOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf('/')));
}

/** The folders of a tree path ("a/b/c.txt" → ["a", "b"]). */
function foldersOf(path: string): string[] {
  return path.split('/').slice(0, -1);
}

function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The tree rooted at `root` (absolute, in the VM: e.g. the client's `workspacePath`). */
export class CodeSandboxTree implements SyncTree {
  readonly description: string;
  private readonly maxFileBytes: number;
  private readonly aliases: readonly string[];
  private readonly callTimeoutMs: number;
  /** Whether rename replaces an existing target; probed on the first replace. */
  private clobbers: Promise<boolean> | null = null;

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
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  }

  private abs(path: string): string {
    return path === '' ? this.root : `${this.root}/${path}`;
  }

  /** `fs.stat`, null only for ENOENT; other failures throw (codesandbox-errors.ts). */
  private async statOrNull(path: string): Promise<CsbStat | null> {
    try {
      return await this.stat_(this.abs(path));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** `fs.stat` of an absolute path, bounded, with the mtime in ms. */
  private async stat_(abs: string): Promise<CsbStat> {
    const st = await this.call('stat', abs, () => this.fs.stat(abs));
    return { ...st, mtime: mtimeMs(st.mtime) };
  }

  /** Runs one SDK call, bounded and its failure translated (codesandbox-errors.ts). */
  private call<T>(name: string, path: string, run: () => Promise<T>, bytes = 0): Promise<T> {
    return boundedCall(name, path, this.callTimeoutMs, run, bytes);
  }

  /** An SDK call whose failure loses nothing (clean-up): bounded, any failure ignored. */
  private async tidy(name: string, path: string, run: () => Promise<unknown>): Promise<void> {
    await this.call(name, path, run).catch(() => undefined);
  }

  async exists(): Promise<boolean> {
    return (await this.statOrNull(''))?.type === 'directory';
  }

  /**
   * Checks each folder of `parts` below the root: SymlinkInPathError for a link, ENOTDIR for
   * anything else but a folder. `create` makes missing ones one level at a time (the first
   * with its parents: the root is the caller's) and checks each after making it, so a link
   * planted in between is refused too; a folder that exists already (mkdir's EEXIST, or one
   * made meanwhile) is fine. False when one is missing and `create` is false.
   *
   * Race-safety: the SDK names files by path only (no descriptors), so this is check-then-use:
   * a process inside the VM could swap a checked folder for a link before the call that
   * follows. Such a process has the VM already, so the window gives it nothing it lacks; what
   * the check stops is a link planted in advance (a repository, an earlier session).
   */
  private async folders(parts: readonly string[], create: boolean): Promise<boolean> {
    for (let i = 0; i < parts.length; i++) {
      const rel = parts.slice(0, i + 1).join('/');
      let st = await this.statOrNull(rel);
      if (st === null) {
        if (!create) return false;
        let failure: unknown = null;
        await this.call('mkdir', this.abs(rel), () => this.fs.mkdir(this.abs(rel), i === 0)).catch(
          (error: unknown) => {
            failure = error;
          },
        );
        st = await this.statOrNull(rel);
        if (st === null) {
          throw failure === null ? codedError(`${rel} could not be created`, 'ENOENT') : failure;
        }
      }
      if (st.isSymlink) throw new SymlinkInPathError(rel);
      if (st.type !== 'directory') throw codedError(`${rel} is not a folder`, 'ENOTDIR');
    }
    return true;
  }

  /** `folders(parts, false)`, with a missing folder as ENOENT. */
  private async existingFolders(path: string): Promise<void> {
    if (!(await this.folders(foldersOf(path), false))) {
      throw codedError(`${path} does not exist`, 'ENOENT');
    }
  }

  /** The entry at `path` as the SDK reports it; its folders are the caller's to check. */
  private async entry(path: string): Promise<TreeEntry | null> {
    const st = await this.statOrNull(path);
    if (st === null) return null;
    if (st.isSymlink) return link(path, st);
    if (st.type === 'directory') return null;
    return { path, type: 'file', size: st.size, mtimeMs: st.mtime };
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
          entries = await this.call('readdir', this.abs(dir), () => this.fs.readdir(this.abs(dir)));
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
      if ((error as { code?: unknown }).code === 'ENOTDIR') return null;
      throw error;
    }
    return this.entry(path);
  }

  /** `readFile` follows links, so the file itself is checked too. */
  async *read(path: string): AsyncGenerator<Uint8Array> {
    await this.existingFolders(path);
    const entry = await this.entry(path);
    if (entry?.type === 'symlink') throw new SymlinkInPathError(path);
    if (entry === null) throw codedError(`${path} does not exist`, 'ENOENT');
    if (entry.size > this.maxFileBytes) throw tooLarge(path, entry.size, this.maxFileBytes);
    const abs = this.abs(path);
    yield await this.call('readFile', abs, () => this.fs.readFile(abs), entry.size);
  }

  /**
   * Whether `rename` replaces an existing file: the SDK documents an `overwrite` flag but does
   * not send it, so what happens is the VM's default. Probed once, in the state folder.
   */
  private renameClobbers(): Promise<boolean> {
    this.clobbers ??= (async () => {
      const from = this.abs(`${STATE_DIR}/tmp/probe-${randomUUID()}`);
      const to = this.abs(`${STATE_DIR}/tmp/probe-${randomUUID()}`);
      await this.call('writeFile', from, () => this.fs.writeFile(from, Buffer.from('new')));
      await this.call('writeFile', to, () => this.fs.writeFile(to, Buffer.from('old')));
      let replaced = false;
      try {
        await this.call('rename', to, () => this.fs.rename(from, to, true));
        const read = await this.call('readFile', to, () => this.fs.readFile(to));
        replaced = Buffer.from(read).toString() === 'new';
      } catch {
        // Refused (or no answer): moving the old file aside first is safe either way.
      }
      await this.tidy('remove', from, () => this.fs.remove(from, false));
      await this.tidy('remove', to, () => this.fs.remove(to, false));
      return replaced;
    })();
    return this.clobbers;
  }

  /**
   * Writes `data` to the state folder, checks the target's folders, then puts it at `path`:
   * one rename when the VM's rename replaces files; otherwise the old file is renamed aside
   * first and renamed back if the new one cannot take its place, so a failure leaves the old
   * content (readers may find no file for the moment between the two renames).
   */
  private async replace(path: string, data: Uint8Array): Promise<void> {
    await this.folders([STATE_DIR, 'tmp'], true);
    const tmp = this.abs(`${STATE_DIR}/tmp/${randomUUID()}`);
    await this.call(
      'writeFile',
      tmp,
      () => this.fs.writeFile(tmp, data, { create: true, overwrite: true }),
      data.byteLength,
    );
    const target = this.abs(path);
    try {
      await this.folders(foldersOf(path), true);
      const clobbers = await this.renameClobbers();
      const old = clobbers ? null : await this.entry(path);
      if (old === null) {
        await this.call('rename', target, () => this.fs.rename(tmp, target, true));
        return;
      }
      const aside = this.abs(`${STATE_DIR}/tmp/${randomUUID()}.old`);
      await this.call('rename', target, () => this.fs.rename(target, aside, false));
      try {
        await this.call('rename', target, () => this.fs.rename(tmp, target, false));
      } catch (error) {
        await this.tidy('rename', target, () => this.fs.rename(aside, target, false));
        throw error;
      }
      await this.tidy('remove', aside, () => this.fs.remove(aside, false));
    } catch (error) {
      await this.tidy('remove', tmp, () => this.fs.remove(tmp, false));
      throw error;
    }
  }

  async write(path: string, content: AsyncIterable<Uint8Array>): Promise<WrittenFile> {
    await this.replace(path, await collect(content, this.maxFileBytes, path));
    const st = await this.stat_(this.abs(path));
    return { size: st.size, mtimeMs: st.mtime };
  }

  async remove(path: string): Promise<void> {
    try {
      if (!(await this.folders(foldersOf(path), false))) return;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOTDIR') return; // nothing beneath a file
      throw error;
    }
    if ((await this.entry(path)) === null) return;
    await this.call('remove', this.abs(path), () => this.fs.remove(this.abs(path), false));
    // Folders the file left empty go too; best effort: a failure here loses nothing.
    let dir = parentOf(path);
    while (dir !== '') {
      const abs = this.abs(dir);
      const left = await this.call('readdir', abs, () => this.fs.readdir(abs)).catch(() => null);
      if (left === null || left.length > 0) return;
      await this.tidy('remove', abs, () => this.fs.remove(abs, false));
      dir = parentOf(dir);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    await this.existingFolders(from);
    await this.folders(foldersOf(to), true);
    if ((await this.entry(to)) !== null) throw codedError(`${to} exists`, 'EEXIST');
    await this.call('rename', this.abs(to), () =>
      this.fs.rename(this.abs(from), this.abs(to), false),
    );
  }

  async readState(name: string): Promise<string | null> {
    const path = `${STATE_DIR}/${name}`;
    if (!(await this.folders([STATE_DIR], false)) || (await this.entry(path)) === null) {
      return null;
    }
    const abs = this.abs(path);
    const bytes = await this.call('readFile', abs, () => this.fs.readFile(abs));
    return Buffer.from(bytes).toString('utf8');
  }

  async writeState(name: string, text: string): Promise<void> {
    await this.replace(`${STATE_DIR}/${name}`, Buffer.from(text, 'utf8'));
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
      call: (run) => this.call('watch', this.root, run),
      ...(this.options.connection === undefined ? {} : { connection: this.options.connection }),
      onChange,
      ...(onRescan === undefined ? {} : { onRescan }),
    });
  }
}

function link(path: string, st: CsbStat): TreeEntry {
  return { path, type: 'symlink', size: 0, mtimeMs: st.mtime };
}
