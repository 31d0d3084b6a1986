/** BlobStore on disk: write-once files at `<root>/<ab>/<hash>`, durable when put resolves. */
import { createHash, randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { link, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { SatchelError } from '@satchel/client/errors.js';
import type { BlobPutOptions, BlobRef, BlobStore } from './blob-store.js';
import {
  checkHash,
  checkRef,
  DEFAULT_CHUNK_SIZE,
  integrityError,
  isHash,
  resolveRange,
  verifyChunk,
} from './content-hash.js';
import { IO_SIZE, PipelinedWriter } from './pipelined-writer.js';
import { StreamHasher } from './stream-hasher.js';

const FAN_OUT = /^[0-9a-f]{2}$/;

export interface FsBlobStoreOptions {
  /** Verification chunk size recorded in the refs `put` returns (default 1 MiB). */
  readonly chunkSize?: number;
}

export class FsBlobStore implements BlobStore {
  readonly #root: string;
  readonly #tmp: string;
  readonly #chunkSize: number;
  /** Fan-out directories whose entry in `root` this process has fsynced. */
  readonly #durableDirs = new Set<string>();

  private constructor(root: string, chunkSize: number) {
    this.#root = root;
    this.#tmp = join(root, 'tmp');
    this.#chunkSize = chunkSize;
  }

  /**
   * Opens (creating if needed) the store at `root` and removes temp files left by interrupted
   * writes of processes that are gone (temp names carry the writer's pid, so several processes
   * can share a root: a CLI next to a running server). Errors: INVALID_INPUT for a bad chunk
   * size, or the file system's own error.
   */
  static async open(root: string, options: FsBlobStoreOptions = {}): Promise<FsBlobStore> {
    const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0) {
      throw new SatchelError(
        'INVALID_INPUT',
        `chunk size must be a positive integer, got ${chunkSize}`,
      );
    }
    const store = new FsBlobStore(root, chunkSize);
    await mkdir(store.#tmp, { recursive: true });
    for (const name of await readdir(store.#tmp)) {
      if (writerAlive(name)) continue;
      await rm(join(store.#tmp, name), { recursive: true, force: true });
    }
    return store;
  }

  async put(source: AsyncIterable<Uint8Array>, options: BlobPutOptions = {}): Promise<BlobRef> {
    const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    const tempPath = join(this.#tmp, `${process.pid}-${randomBytes(12).toString('hex')}.tmp`);
    const hasher = new StreamHasher(this.#chunkSize);
    let fh: FileHandle | undefined = await open(tempPath, 'wx');
    const writer = new PipelinedWriter(fh);
    try {
      for await (const piece of source) {
        if (hasher.size + piece.byteLength > maxBytes) throw tooLarge(maxBytes);
        // Started first, so that a piece written straight from the caller's memory is on its
        // way to disk while it is hashed; awaited before the source may reuse that memory.
        const taken = writer.write(piece);
        const hashed = hasher.update(piece);
        // Both are usually nothing (copied at once): no promise per piece then.
        if (taken && hashed) await Promise.all([taken, hashed]);
        else await (taken ?? hashed);
      }
      await writer.end();
      await fh.sync();
      const closing = fh;
      fh = undefined;
      await closing.close();

      const digest = await hasher.digest();
      const dir = join(this.#root, digest.hash.slice(0, 2));
      await this.#ensureDurableDir(dir);
      const final = join(dir, digest.hash);
      try {
        // link, unlike rename, never replaces an existing file: stored content is write-once.
        await link(tempPath, final);
        await unlink(tempPath);
      } catch (error) {
        if (errnoCode(error) !== 'EEXIST') throw error;
        // Content by that name is already stored. If it has rotted, or garbage collection
        // deleted it since, the bytes just received are the right ones (they hash to the name):
        // put them in its place; otherwise drop ours.
        if ((await this.verify(digest.hash)) !== 'ok') await rename(tempPath, final);
        else await unlink(tempPath);
      }
      // Also when the content already existed: the put that linked it may not have synced yet.
      await syncDir(dir);
      return {
        hash: digest.hash,
        size: digest.size,
        chunkSize: digest.chunkSize,
        chunks: digest.chunks,
      };
    } catch (error) {
      // No write may still be running when the descriptor is closed (and possibly reused).
      await writer.settle();
      await fh?.close().catch(() => undefined);
      await rm(tempPath, { force: true }).catch(() => undefined);
      throw error;
    }
  }

  async *get(ref: BlobRef, range?: { start: number; end: number }): AsyncIterable<Uint8Array> {
    checkRef(ref);
    const { start, end } = resolveRange(ref, range);
    const fh = await this.#openContent(ref.hash);
    try {
      const { size } = await fh.stat();
      if (size !== ref.size) {
        throw integrityError(ref.hash, `size is ${size} bytes, ${ref.size} expected`);
      }
      if (ref.size === 0) verifyChunk(ref, 0, new Uint8Array(0));
      if (start === end) return;
      const last = Math.floor((end - 1) / ref.chunkSize);
      for (let index = Math.floor(start / ref.chunkSize); index <= last; index++) {
        const position = index * ref.chunkSize;
        // A fresh buffer per chunk: callers may keep what they were given.
        const chunk = Buffer.allocUnsafe(Math.min(ref.chunkSize, ref.size - position));
        if ((await readFully(fh, chunk, position)) < chunk.byteLength) {
          throw integrityError(ref.hash, `content ends inside chunk ${index}`);
        }
        verifyChunk(ref, index, chunk);
        yield chunk.subarray(Math.max(start - position, 0), Math.min(end - position, chunk.length));
      }
    } finally {
      await fh.close();
    }
  }

  /**
   * The stored bytes of `hash` and their size, NOT verified: for copying content into another
   * store, which hashes what it receives (`satchel migrate --to-blobs`). INTEGRITY if missing.
   */
  async raw(hash: string): Promise<{ size: number; bytes: AsyncIterable<Uint8Array> }> {
    checkHash(hash);
    const fh = await this.#openContent(hash);
    const { size } = await fh.stat();
    return { size, bytes: fh.createReadStream({ highWaterMark: IO_SIZE }) };
  }

  async has(hash: string): Promise<boolean> {
    checkHash(hash);
    try {
      return (await stat(this.#pathOf(hash))).isFile();
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return false;
      throw error;
    }
  }

  async verify(hash: string): Promise<'ok' | 'missing' | 'corrupt'> {
    checkHash(hash);
    let fh: FileHandle;
    try {
      fh = await open(this.#pathOf(hash), 'r');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return 'missing';
      throw error;
    }
    try {
      const sha = createHash('sha256');
      const buffer = Buffer.allocUnsafe(IO_SIZE);
      for (let position = 0; ; ) {
        const { bytesRead } = await fh.read(buffer, 0, buffer.byteLength, position);
        if (bytesRead === 0) break;
        sha.update(buffer.subarray(0, bytesRead));
        position += bytesRead;
      }
      return sha.digest('hex') === hash ? 'ok' : 'corrupt';
    } finally {
      await fh.close();
    }
  }

  async *list(): AsyncIterable<string> {
    for (const entry of await readdir(this.#root, { withFileTypes: true })) {
      if (!entry.isDirectory() || !FAN_OUT.test(entry.name)) continue;
      let names: string[];
      try {
        names = await readdir(join(this.#root, entry.name));
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') continue;
        throw error;
      }
      for (const name of names) {
        if (isHash(name) && name.startsWith(entry.name)) yield name;
      }
    }
  }

  async delete(hash: string): Promise<void> {
    checkHash(hash);
    try {
      await unlink(this.#pathOf(hash));
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return;
      throw error;
    }
    await syncDir(join(this.#root, hash.slice(0, 2)));
  }

  #pathOf(hash: string): string {
    return join(this.#root, hash.slice(0, 2), hash);
  }

  async #openContent(hash: string): Promise<FileHandle> {
    try {
      return await open(this.#pathOf(hash), 'r');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') throw integrityError(hash, 'content is missing');
      throw error;
    }
  }

  /**
   * Makes sure `dir` exists and its entry in `root` is durable. Syncs `root` once per directory
   * per process rather than only when this call created it: a concurrent put, or a process that
   * crashed, may have created it without syncing `root` yet.
   */
  async #ensureDurableDir(dir: string): Promise<void> {
    if (this.#durableDirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    await syncDir(this.#root);
    this.#durableDirs.add(dir);
  }
}

function tooLarge(maxBytes: number): SatchelError {
  return new SatchelError('TOO_LARGE', `content exceeds the limit of ${maxBytes} bytes`, {
    maxBytes,
  });
}

/** Reads into all of `buffer` from `position`; returns fewer bytes only at end of file. */
async function readFully(fh: FileHandle, buffer: Buffer, position: number): Promise<number> {
  let filled = 0;
  while (filled < buffer.byteLength) {
    const { bytesRead } = await fh.read(
      buffer,
      filled,
      buffer.byteLength - filled,
      position + filled,
    );
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/** A directory's entries are durable only once the directory itself is fsynced. */
async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Whether the process that named a temp file `<pid>-<random>.tmp` is still running. */
function writerAlive(name: string): boolean {
  const pid = Number(name.split('-', 1)[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === 'EPERM';
  }
}

function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}
