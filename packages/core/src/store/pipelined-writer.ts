/** Appending a stream of pieces to one file with flat memory, writes overlapping the caller's work. */
import type { FileHandle } from 'node:fs/promises';

/** Size of the writes issued: few syscalls (each one a thread-pool hop), flat memory. */
export const IO_SIZE = 1024 * 1024;
/** Buffers of IO_SIZE one writer may hold: one being filled while the others are written. */
const WRITE_BUFFERS = 3;
/**
 * Appends to a file so that filling (and hashing) the next buffer overlaps the write of the
 * previous one. Writes run one at a time, in order, at explicit positions. Memory is bounded:
 * pieces are copied into at most WRITE_BUFFERS buffers of IO_SIZE bytes (one filling, the others
 * queued or being written), except that whole IO_SIZE blocks of a big piece are written straight
 * from the caller's memory, without a copy.
 */
export class PipelinedWriter {
  readonly #fh: FileHandle;
  #position = 0;
  /** Settles when every write issued so far has; rejects if any of them failed. */
  #tail: Promise<void> = Promise.resolve();
  /** Buffers handed to a write, oldest first, each with the promise of its write. */
  readonly #busy: Array<{ readonly buffer: Buffer; readonly written: Promise<void> }> = [];
  #allocated = 0;
  #current: Buffer | undefined;
  #filled = 0;

  constructor(fh: FileHandle) {
    this.#fh = fh;
  }

  /**
   * Takes `piece`. Returns nothing when its bytes were copied at once (the common case, kept free
   * of promises: it runs for every piece of a stream); otherwise a promise that resolves once
   * they have been copied or written, so that the caller may reuse its memory. That promise waits
   * for a free buffer when all are busy (back-pressure), and rejects with the error of any failed
   * write.
   */
  write(piece: Uint8Array): Promise<void> | undefined {
    if (this.#current && piece.byteLength < IO_SIZE - this.#filled) {
      this.#current.set(piece, this.#filled);
      this.#filled += piece.byteLength;
      return undefined;
    }
    return this.#take(piece);
  }

  async #take(piece: Uint8Array): Promise<void> {
    let offset = 0;
    let direct: Promise<void> | undefined;
    while (offset < piece.byteLength) {
      const left = piece.byteLength - offset;
      if (this.#filled === 0 && left >= IO_SIZE) {
        const whole = left - (left % IO_SIZE);
        direct = this.#issue(piece.subarray(offset, offset + whole));
        offset += whole;
        continue;
      }
      this.#current ??= await this.#freeBuffer();
      const take = Math.min(IO_SIZE - this.#filled, left);
      this.#current.set(piece.subarray(offset, offset + take), this.#filled);
      this.#filled += take;
      offset += take;
      if (this.#filled === IO_SIZE) this.#flush();
    }
    // Writes run in order: once this one is done, nothing reads `piece` any more.
    if (direct) await direct;
  }

  /** Writes what is buffered and waits for every write. */
  async end(): Promise<void> {
    if (this.#filled > 0) this.#flush();
    await this.#tail;
  }

  /** Waits until no write is running, ignoring failures (for cleanup after an error). */
  async settle(): Promise<void> {
    await this.#tail.catch(() => undefined);
  }

  /** Hands the current buffer (its filled part) to a write; the buffer is busy until it is done. */
  #flush(): void {
    const buffer = this.#current;
    if (!buffer) return;
    const written = this.#issue(buffer.subarray(0, this.#filled));
    this.#busy.push({ buffer, written });
    this.#current = undefined;
    this.#filled = 0;
  }

  #issue(data: Uint8Array): Promise<void> {
    const position = this.#position;
    this.#position += data.byteLength;
    const written = this.#tail.then(() => writeAllAt(this.#fh, data, position));
    // Observed here, so a failure while nobody awaits it is not an unhandled rejection; it
    // surfaces to whoever awaits this write, a later one, or the end.
    written.catch(() => undefined);
    this.#tail = written;
    return written;
  }

  async #freeBuffer(): Promise<Buffer> {
    if (this.#allocated < WRITE_BUFFERS) {
      this.#allocated++;
      return Buffer.allocUnsafe(IO_SIZE);
    }
    const oldest = this.#busy.shift();
    if (!oldest) throw new Error('every write buffer is lost');
    await oldest.written;
    return oldest.buffer;
  }
}

async function writeAllAt(fh: FileHandle, data: Uint8Array, position: number): Promise<void> {
  for (let offset = 0; offset < data.byteLength; ) {
    const left = data.byteLength - offset;
    const { bytesWritten } = await fh.write(data, offset, left, position + offset);
    if (bytesWritten === 0) throw new Error('write made no progress');
    offset += bytesWritten;
  }
}
