/** The local side of `put` and `get`: read a local file as a stream, write one atomically. */
import { randomBytes } from 'node:crypto';
import { type FileHandle, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { localFileError } from './errors.js';

/**
 * Opens a local file for streaming. Errors (missing, a directory, no permission) surface here,
 * before anything is sent, as NOT_FOUND / INVALID_INPUT / FORBIDDEN. The caller must consume or
 * destroy the stream; either closes the file.
 */
export async function openLocal(cwd: string, path: string): Promise<Readable> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(resolve(cwd, path), 'r');
    // Opening a directory succeeds on Linux; reading it would fail later, mid-upload.
    if ((await handle.stat()).isDirectory()) {
      throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    }
    return handle.createReadStream();
  } catch (error) {
    await handle?.close();
    throw localFileError(error, path);
  }
}

/** Where `get` writes: into LOCAL, or LOCAL/<name> when LOCAL is an existing directory. */
export async function localTarget(cwd: string, local: string, name: string): Promise<string> {
  const target = resolve(cwd, local);
  const found = await stat(target).catch(() => null);
  return found?.isDirectory() ? join(target, name) : target;
}

/**
 * Writes `source` to a temp file beside `target`, fsyncs it and renames it into place only after
 * the whole stream arrived: a failed read (NOT_FOUND mid-way, INTEGRITY) never leaves a partial
 * or truncated `target`, and an existing `target` stays intact. Returns the bytes written.
 */
export async function writeLocalAtomically(
  target: string,
  source: AsyncIterable<Uint8Array>,
): Promise<number> {
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  let handle: FileHandle;
  try {
    handle = await open(temp, 'wx');
  } catch (error) {
    throw localFileError(error, dirname(target));
  }
  let bytes = 0;
  let closed = false;
  try {
    for await (const piece of source) {
      // A write may be partial; loop until the piece is on disk.
      for (let offset = 0; offset < piece.byteLength; ) {
        offset += (await handle.write(piece, offset, piece.byteLength - offset)).bytesWritten;
      }
      bytes += piece.byteLength;
    }
    await handle.sync();
    closed = true;
    await handle.close();
    await rename(temp, target).catch((error: unknown) => {
      throw localFileError(error, target);
    });
    return bytes;
  } catch (error) {
    if (!closed) await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
}
