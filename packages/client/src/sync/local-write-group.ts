/**
 * Grouped durable writes for LocalTree: a group's files go to temporary files beside their
 * targets and are flushed together before each is renamed into place (local-tree.ts).
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { flushFiles } from './flush-files.js';
import { at, type FolderRun, type Folders } from './folders.js';
import { TEMP_PREFIX, type TreeWriteGroup, type WrittenFile } from './tree.js';

/** The folders and the name of a tree path ("a/b/c.txt" → ["a", "b"], "c.txt"). */
export function split(path: string): { parts: string[]; name: string } {
  const parts = path.split('/');
  const name = parts.pop() ?? '';
  return { parts, name };
}

/** Writes every piece of `content` to `handle` (short writes continued); returns the bytes. */
export async function writeAll(
  handle: FileHandle,
  content: AsyncIterable<Uint8Array>,
): Promise<number> {
  let bytes = 0;
  for await (const piece of content) {
    let offset = 0;
    while (offset < piece.byteLength) {
      const { bytesWritten } = await handle.write(piece, offset, piece.byteLength - offset);
      offset += bytesWritten;
    }
    bytes += piece.byteLength;
  }
  return bytes;
}

/** Writes every piece of `content` to the descriptor `fd` (short writes continued). */
async function writeAllSync(fd: number, content: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const piece of content) {
    for (let offset = 0; offset < piece.byteLength; ) {
      offset += writeSync(fd, piece, offset, piece.byteLength - offset);
    }
    bytes += piece.byteLength;
  }
  return bytes;
}

/** A temporary file of a write group, open until the group is flushed. */
interface Pending {
  readonly path: string;
  /** Its name in the target's folder (TEMP_PREFIX and a random id). */
  readonly temp: string;
  readonly fd: number;
}

/** A flushed file of a write group: what the tree records of it once renamed into place. */
interface Flushed extends Pending {
  /** From its descriptor: a rename keeps size, mtime and inode. */
  readonly written: WrittenFile;
}

/** A file of the group whose folders could not be made: its outcome at the commit. */
interface Refused {
  readonly path: string;
  readonly error: unknown;
}

/**
 * Writes a group's files to temporary files beside their targets, then flushes them all at once
 * (`flushFiles`: one `syncfs` per file system for a large group, else fsyncs side by side on the
 * thread pool), renames each into place in the folders it was written in, as `write` does, and
 * flushes the folders those renames and any new folders changed (`FolderRun.flushChanged`: one
 * more `syncfs` after one, else an fsync per folder). Beside the target,
 * not in the state folder: a rename across folders cost ext4 four times the create (10,000
 * files: 0.9–1.0 s against 0.25–0.5 s). The other calls are synchronous, as the tree's `list`
 * and `read`: a thread-pool round trip per open, write, close, rename and stat cost more than
 * the calls themselves.
 */
export class LocalWriteGroup implements TreeWriteGroup {
  #pending: Pending[] = [];
  #refused: Refused[] = [];
  /** The folders the group's files are written in, opened once each (`FolderRun`). */
  #folders: FolderRun | null = null;
  bytes = 0;

  constructor(private readonly folders: Folders) {}

  get size(): number {
    return this.#pending.length + this.#refused.length;
  }

  async add(path: string, content: AsyncIterable<Uint8Array>): Promise<void> {
    // The target's folders are made now, before the content is consumed, as `write` does. When
    // they cannot be (a file or a link on the way), that is this file's outcome at the commit,
    // not the group's; its content is left unread (the caller drains it).
    const { parts } = split(path);
    let reached = false;
    this.#folders ??= this.folders.run();
    try {
      await this.folders.make(
        parts,
        async (folder) => {
          reached = true;
          const temp = `${TEMP_PREFIX}${randomUUID()}`;
          const fd = openSync(at(folder, temp), 'wx', 0o644);
          try {
            this.bytes += await writeAllSync(fd, content);
          } catch (error) {
            closeSync(fd);
            unlinkQuietly(at(folder, temp));
            throw error;
          }
          this.#pending.push({ path, temp, fd });
        },
        this.#folders,
      );
    } catch (error) {
      if (reached) throw error;
      this.#refused.push({ path, error });
    }
  }

  async commit() {
    const pending = this.#pending;
    const out: Array<{ path: string; written: WrittenFile } | { path: string; error: unknown }> =
      this.#refused;
    // The renames go into the folders the files were written in, held since.
    const run = this.#folders ?? this.folders.run();
    this.#pending = [];
    this.#refused = [];
    this.bytes = 0;
    this.#folders = null;
    try {
      let flushed: Flushed[];
      let way: 'syncfs' | 'fsync';
      try {
        const stated = pending.map((p) => ({ p, st: fstatSync(p.fd) }));
        flushed = stated.map(({ p, st }) => ({
          ...p,
          written: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino },
        }));
        way = await flushFiles(stated.map(({ p, st }) => ({ fd: p.fd, dev: st.dev })));
      } catch (error) {
        await this.#remove(pending);
        throw error;
      } finally {
        for (const p of pending) closeSync(p.fd);
      }
      for (const { path, temp, written } of flushed) {
        const { parts, name } = split(path);
        try {
          await this.folders.make(
            parts,
            async (folder) => {
              try {
                renameSync(at(folder, temp), at(folder, name));
              } catch (error) {
                unlinkQuietly(at(folder, temp));
                throw error;
              }
              run.changed(folder);
            },
            run,
          );
          out.push({ path, written });
        } catch (error) {
          out.push({ path, error });
        }
      }
      // Durable before any file is reported written (FolderRun.flushChanged says why).
      await run.flushChanged(way);
    } finally {
      run.close();
    }
    return out;
  }

  async discard(): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    this.#refused = [];
    this.#folders?.close();
    this.#folders = null;
    for (const p of pending) closeSync(p.fd);
    await this.#remove(pending);
  }

  /** Removes the temporary files of `pending` (those whose folders are still there). */
  async #remove(pending: readonly Pending[]): Promise<void> {
    for (const { path, temp } of pending) {
      await this.folders
        .find(split(path).parts, async (folder) => unlinkQuietly(at(folder, temp)))
        .catch(() => undefined);
    }
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone: nothing to clean
  }
}
