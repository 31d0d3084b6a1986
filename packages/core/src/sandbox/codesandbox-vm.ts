/**
 * Checked calls on a CodeSandbox VM's file system below a tree's root, shared by the tree
 * (codesandbox-tree.ts) and its write groups (codesandbox-write-group.ts): every call bounded
 * and its failure translated (codesandbox-errors.ts), every folder on the way to a path checked
 * not to be a symbolic link, and files put in place from the state folder by rename.
 */
import { randomUUID } from 'node:crypto';
import { eachLimit } from '@satchel/client/each-limit.js';
import { STATE_DIR, SymlinkInPathError, type TreeEntry } from '@satchel/client/sync/tree.js';
import { boundedCall, isMissing } from './codesandbox-errors.js';
import { type CsbFileSystem, type CsbStat, mtimeMs } from './codesandbox-fs.js';

/** The folders of a tree path ("a/b/c.txt" → ["a", "b"]). */
export function foldersOf(path: string): string[] {
  return path.split('/').slice(0, -1);
}

export function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** Folder checks already made, by the folder's tree path ("a/b"): one check each per batch. */
export type FolderChecks = Map<string, Promise<void>>;

/** Age past which the temp folder's leftovers are removed (`CsbVm.tempFolder`). */
const STALE_TEMP_MS = 24 * 60 * 60 * 1000;
const SWEEP_CONCURRENCY = 8;

export class CsbVm {
  /** Whether rename replaces an existing target; probed on the first replace. */
  private clobbers: Promise<boolean> | null = null;
  #swept: Promise<void> | undefined;

  constructor(
    readonly fs: CsbFileSystem,
    readonly root: string,
    private readonly callTimeoutMs: number,
  ) {}

  /** The VM's absolute path of tree path `path`. */
  abs(path: string): string {
    return path === '' ? this.root : `${this.root}/${path}`;
  }

  /** Runs one SDK call, bounded and its failure translated (codesandbox-errors.ts). */
  call<T>(name: string, path: string, run: () => Promise<T>, bytes = 0): Promise<T> {
    return boundedCall(name, path, this.callTimeoutMs, run, bytes);
  }

  /** An SDK call whose failure loses nothing (clean-up): bounded, any failure ignored. */
  async tidy(name: string, path: string, run: () => Promise<unknown>): Promise<void> {
    await this.call(name, path, run).catch(() => undefined);
  }

  /** `fs.stat`, null only for ENOENT; other failures throw (codesandbox-errors.ts). */
  async statOrNull(path: string): Promise<CsbStat | null> {
    try {
      return await this.stat(this.abs(path));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** `fs.stat` of an absolute path, bounded, with the mtime in ms. */
  async stat(abs: string): Promise<CsbStat> {
    const st = await this.call('stat', abs, () => this.fs.stat(abs));
    return { ...st, mtime: mtimeMs(st.mtime) };
  }

  /** The entry at `path` as the SDK reports it; its folders are the caller's to check. */
  async entry(path: string): Promise<TreeEntry | null> {
    const st = await this.statOrNull(path);
    if (st === null) return null;
    if (st.isSymlink) return { path, type: 'symlink', size: 0, mtimeMs: st.mtime };
    if (st.type === 'directory') return null;
    return { path, type: 'file', size: st.size, mtimeMs: st.mtime };
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
  async folders(parts: readonly string[], create: boolean): Promise<boolean> {
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

  /**
   * `folders(foldersOf(path), true)`, made once per folder in `checks`: the files of one batch
   * that share a folder share its check (and its failure).
   */
  madeFolders(path: string, checks: FolderChecks): Promise<void> {
    const parts = foldersOf(path);
    const key = parts.join('/');
    let check = checks.get(key);
    if (!check) {
      check = this.folders(parts, true).then(() => undefined);
      checks.set(key, check);
    }
    return check;
  }

  /** The state folder's `tmp`, made and checked; its tree path. Swept once per tree. */
  async tempFolder(): Promise<string> {
    await this.folders([STATE_DIR, 'tmp'], true);
    this.#swept ??= this.#sweep();
    await this.#swept;
    return `${STATE_DIR}/tmp`;
  }

  /**
   * Removes what the temp folder has held for more than a day: files of a write cut off by a
   * crash, a group a late `batchWrite` unzipped after its caller gave up. A day, not less: the
   * VM's clock is not ours, and a sync running meanwhile must keep its own. Best effort.
   */
  async #sweep(): Promise<void> {
    const dir = this.abs(`${STATE_DIR}/tmp`);
    const entries = await this.call('readdir', dir, () => this.fs.readdir(dir)).catch(() => []);
    const cutoff = Date.now() - STALE_TEMP_MS;
    await eachLimit(entries, SWEEP_CONCURRENCY, async ({ name }) => {
      const path = `${dir}/${name}`;
      const st = await this.stat(path).catch(() => null);
      if (st === null || st.mtime >= cutoff) return;
      // A link is removed itself, never what it points to.
      const recursive = st.type === 'directory' && !st.isSymlink;
      await this.tidy('remove', path, () => this.fs.remove(path, recursive));
    });
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
   * Puts the file at `tmp` (an absolute path in the state folder) at `path`, whose folders the
   * caller has checked: one rename when the VM's rename replaces files; otherwise the old file
   * is renamed aside first and renamed back if the new one cannot take its place, so a failure
   * leaves the old content (readers may find no file for the moment between the two renames).
   * On failure `tmp` is removed.
   */
  async place(tmp: string, path: string): Promise<void> {
    const target = this.abs(path);
    try {
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

  /** Writes `data` to the state folder, checks the target's folders, then places it. */
  async replace(path: string, data: Uint8Array): Promise<void> {
    const tmp = this.abs(`${await this.tempFolder()}/${randomUUID()}`);
    await this.call(
      'writeFile',
      tmp,
      () => this.fs.writeFile(tmp, data, { create: true, overwrite: true }),
      data.byteLength,
    );
    try {
      await this.folders(foldersOf(path), true);
    } catch (error) {
      await this.tidy('remove', tmp, () => this.fs.remove(tmp, false));
      throw error;
    }
    await this.place(tmp, path);
  }
}
