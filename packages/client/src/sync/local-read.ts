/**
 * Reading a file of a LocalTree: opened without following a link, the file itself included
 * (O_NOFOLLOW, O_NONBLOCK so that a FIFO swapped in after the scan cannot hang the read),
 * through the folders verified on the way (folders.ts).
 */
import { closeSync, constants, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import { at, type Folders } from './folders.js';
import { split } from './local-write-group.js';
import { SymlinkInPathError } from './tree.js';

export const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** Files smaller than this are read in one call; larger ones stream in STREAM_CHUNK pieces. */
const WHOLE_READ_MAX = 256 * 1024;
const STREAM_CHUNK = 1024 * 1024;
/** Longest stretch of synchronous reads before the event loop gets a turn. */
const BREATH_MS = 10;

/** Whether `error` says a path (or a folder on its way) is not there. */
export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export function fsError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** Time of the last turn of the event loop a synchronous read gave (`breathe`). */
let lastBreath = performance.now();

/**
 * Lets the event loop turn when synchronous reads have held it for BREATH_MS: a scan that hashes
 * thousands of small files otherwise runs on microtasks alone for seconds, and sockets (a
 * kept-alive connection the server closed meanwhile), timers and progress bars wait.
 */
async function breathe(): Promise<void> {
  if (performance.now() - lastBreath < BREATH_MS) return;
  await new Promise((resolve) => setImmediate(resolve));
  lastBreath = performance.now();
}

/**
 * The bytes of the file at `path`. A file smaller than WHOLE_READ_MAX is read synchronously in
 * one call, into a buffer of its size and a byte more (a short read is the end of a regular
 * file): as for the tree's `list`, a thread-pool round trip per open, stat, read and close cost
 * more than the calls (2.5× the time, 4× the CPU for 10,000 files of 10 KiB). Larger files, and
 * one that grew since its size was taken, stream.
 */
export async function* readTreeFile(folders: Folders, path: string): AsyncGenerator<Uint8Array> {
  const { parts, name } = split(path);
  const opened = await folders.find(parts, async (folder) => {
    let fd: number;
    try {
      fd = openSync(at(folder, name), READ_FLAGS);
    } catch (error) {
      if ((error as NodeJS.ErrnoException | null)?.code === 'ELOOP') {
        throw new SymlinkInPathError(path);
      }
      throw error;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw fsError(`${path} is no longer a regular file`, 'EISDIR');
      let head = Buffer.alloc(0);
      if (st.size < WHOLE_READ_MAX) {
        head = Buffer.allocUnsafe(st.size + 1);
        head = head.subarray(0, readSync(fd, head, 0, st.size + 1, 0));
        if (head.byteLength <= st.size) {
          closeSync(fd);
          return { head, fd: null };
        }
      }
      return { head, fd };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  });
  if (opened === null) throw fsError(`${path} does not exist`, 'ENOENT');
  const { head, fd } = opened;
  if (fd === null) {
    await breathe();
    if (head.byteLength > 0) yield head;
    return;
  }
  const stream = createReadStream('', {
    fd,
    start: head.byteLength,
    highWaterMark: STREAM_CHUNK,
  });
  try {
    if (head.byteLength > 0) yield head;
    yield* stream;
  } finally {
    stream.destroy();
  }
}
