/**
 * Grouped writes for CodeSandboxTree through the SDK's `fs.batchWrite`, which zips the files,
 * writes the zip to the VM's /tmp and runs `unzip -o` in a shell in the client's workspacePath:
 * one file transfer and one shell for a group, where writing file by file costs a transfer and
 * four or more checks per file, each a round trip to the VM.
 *
 * unzip writes in place and follows symbolic links, so the zip never names a tree path: the
 * group's files are unzipped into a new folder of the state folder (`.satchel-sync/tmp/g-<id>`,
 * a name nobody can know in advance), then each is renamed into place through its checked
 * folders, as `write` does; the files of one folder share one check, and the renames and stats
 * run PLACE_CONCURRENCY at a time. When batchWrite fails (an image without unzip, a shell
 * refused, no answer in time), the group's files are written one by one and the tree stops
 * batching for the rest of its life.
 */
import { randomUUID } from 'node:crypto';
import { eachLimit } from '@satchel/client/each-limit.js';
import { isSatchelError } from '@satchel/client/errors.js';
import type { TreeWriteGroup, WrittenFile } from '@satchel/client/sync/tree.js';
import { collect } from './codesandbox-fs.js';
import type { CsbVm, FolderChecks } from './codesandbox-vm.js';

/** Renames (and stats) of a committed group in flight at once. */
const PLACE_CONCURRENCY = 16;

type Outcome = { path: string; written: WrittenFile } | { path: string; error: unknown };

/**
 * Where tree paths lie in batchWrite's zip, whose entries are relative to the workspace path:
 * `root` relative to `workspacePath` with a trailing slash ('' when they are the same), or null
 * when the root is outside it (unzip would refuse `../`).
 */
export function zipPrefix(workspacePath: string, root: string): string | null {
  const base = workspacePath.replace(/\/+$/, '');
  const dir = root.replace(/\/+$/, '');
  if (dir === base) return '';
  return dir.startsWith(`${base}/`) ? `${dir.slice(base.length + 1)}/` : null;
}

/** The SDK's `fs.batchWrite`. */
export type BatchWrite = (files: Array<{ path: string; content: Uint8Array }>) => Promise<void>;

/** Shared by a tree's groups: batchWrite, whether it works, and the one in flight. */
export class Batching {
  broken = false;
  /** batchWrite names its zip after Date.now(): two at once could share it. */
  queue: Promise<unknown> = Promise.resolve();

  /** `prefix`: see zipPrefix. */
  constructor(
    readonly write: BatchWrite,
    readonly prefix: string,
  ) {}
}

export class CodeSandboxWriteGroup implements TreeWriteGroup {
  #files: Array<{ path: string; data: Buffer }> = [];
  #refused: Outcome[] = [];
  bytes = 0;

  constructor(
    private readonly vm: CsbVm,
    private readonly maxFileBytes: number,
    private readonly batching: Batching,
  ) {}

  get size(): number {
    return this.#files.length + this.#refused.length;
  }

  /** Holds the content in memory (the SDK moves files whole); TOO_LARGE is this file's outcome. */
  async add(path: string, content: AsyncIterable<Uint8Array>): Promise<void> {
    try {
      const data = await collect(content, this.maxFileBytes, path);
      this.#files.push({ path, data });
      this.bytes += data.byteLength;
    } catch (error) {
      if (!isSatchelError(error, 'TOO_LARGE')) throw error;
      this.#refused.push({ path, error });
    }
  }

  async commit(): Promise<Outcome[]> {
    const files = this.#files;
    const out = this.#refused;
    this.#files = [];
    this.#refused = [];
    this.bytes = 0;
    if (files.length === 0) return out;
    const staged = this.batching.broken ? null : await this.#stage(files);
    const placed: Outcome[] = [];
    const checks: FolderChecks = new Map();
    try {
      await eachLimit(
        files.map((file, i) => ({ ...file, i })),
        PLACE_CONCURRENCY,
        async ({ path, data, i }) => {
          try {
            if (staged === null) await this.vm.replace(path, data);
            else {
              await this.vm.madeFolders(path, checks);
              await this.vm.place(this.vm.abs(`${staged}/${i}`), path);
            }
            const st = await this.vm.stat(this.vm.abs(path));
            placed[i] = { path, written: { size: st.size, mtimeMs: st.mtime } };
          } catch (error) {
            placed[i] = { path, error };
          }
        },
      );
    } finally {
      if (staged !== null) await this.#removeFolder(staged);
    }
    return [...out, ...placed];
  }

  async discard(): Promise<void> {
    this.#files = [];
    this.#refused = [];
    this.bytes = 0;
  }

  /**
   * Unzips `files` into a new folder of the state folder, named by their index; its tree path,
   * or null when batchWrite failed (the tree then stops batching).
   */
  async #stage(files: ReadonlyArray<{ data: Buffer }>): Promise<string | null> {
    const dir = `${await this.vm.tempFolder()}/g-${randomUUID()}`;
    const zipped = files.map(({ data }, i) => ({
      path: `${this.batching.prefix}${dir}/${i}`,
      content: data,
    }));
    const bytes = files.reduce((sum, { data }) => sum + data.byteLength, 0);
    const run = this.batching.queue.then(() =>
      this.vm.call('batchWrite', this.vm.abs(dir), () => this.batching.write(zipped), bytes),
    );
    this.batching.queue = run.catch(() => undefined);
    try {
      await run;
      return dir;
    } catch {
      this.batching.broken = true;
      await this.#removeFolder(dir);
      return null;
    }
  }

  async #removeFolder(dir: string): Promise<void> {
    const abs = this.vm.abs(dir);
    await this.vm.tidy('remove', abs, () => this.vm.fs.remove(abs, true));
  }
}
