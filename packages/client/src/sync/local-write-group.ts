/**
 * Grouped durable writes for LocalTree: a group's files go to temporary files in the state
 * folder and are flushed together before each is renamed into place (local-tree.ts).
 */
import { randomUUID } from 'node:crypto';
import { type FileHandle, lstat, open, rename, unlink } from 'node:fs/promises';
import { at, type Folders } from './folders.js';
import { STATE_DIR, type TreeWriteGroup, type WrittenFile } from './tree.js';

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

/** A temporary file of a write group, open until the group is flushed. */
interface Pending {
  readonly path: string;
  /** Its name in the state folder's tmp/. */
  readonly id: string;
  readonly handle: FileHandle;
}

/**
 * Writes a group's files to temporary files in the state folder, then flushes them all at once
 * (the fsyncs run side by side, which the file system's journal commits together) and renames
 * each into place through its verified folders, as `write` does.
 */
export class LocalWriteGroup implements TreeWriteGroup {
  #pending: Pending[] = [];
  bytes = 0;

  constructor(private readonly folders: Folders) {}

  get size(): number {
    return this.#pending.length;
  }

  async add(path: string, content: AsyncIterable<Uint8Array>): Promise<void> {
    await this.folders.make([STATE_DIR, 'tmp'], async (tmpDir) => {
      const id = randomUUID();
      const tmp = at(tmpDir, id);
      const handle = await open(tmp, 'wx', 0o644);
      try {
        this.bytes += await writeAll(handle, content);
      } catch (error) {
        await handle.close();
        await unlink(tmp).catch(() => undefined);
        throw error;
      }
      this.#pending.push({ path, id, handle });
    });
  }

  async commit() {
    const pending = this.#pending;
    this.#pending = [];
    this.bytes = 0;
    await Promise.all(pending.map((p) => p.handle.sync()));
    await Promise.all(pending.map((p) => p.handle.close()));
    const out: Array<{ path: string; written: WrittenFile } | { path: string; error: unknown }> =
      [];
    await this.folders.make([STATE_DIR, 'tmp'], async (tmpDir) => {
      for (const { path, id } of pending) {
        const { parts, name } = split(path);
        try {
          const written = await this.folders.make(parts, async (folder) => {
            const target = at(folder, name);
            await rename(at(tmpDir, id), target);
            const st = await lstat(target);
            return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
          });
          out.push({ path, written });
        } catch (error) {
          await unlink(at(tmpDir, id)).catch(() => undefined);
          out.push({ path, error });
        }
      }
    });
    return out;
  }

  async discard(): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    await Promise.all(pending.map((p) => p.handle.close().catch(() => undefined)));
    await this.folders.make([STATE_DIR, 'tmp'], async (tmpDir) => {
      for (const p of pending) await unlink(at(tmpDir, p.id)).catch(() => undefined);
    });
  }
}
