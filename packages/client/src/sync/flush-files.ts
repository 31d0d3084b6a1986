/**
 * Making a group of new files durable. An fsync each is what a few files need. A rehydrate's
 * groups of hundreds spent a third of its time in them (10,000 files: 3.3 s against 2.2 s with
 * none): each fsync is a system call, a walk of the file's blocks and a flush of the disk's
 * cache. `syncfs` makes every file of a file system durable in one call and one flush, as
 * `cp -a` and `sync -f` do. Node has no binding for it, so it runs as coreutils' `sync -f`
 * (Linux), once per file system the files are on, handed one of the files as its stdin: no
 * path to resolve, whatever the folders became. Where that program is missing or refuses,
 * the first group finds out and every group after takes the fsyncs.
 *
 * What `syncfs` reports: on Linux 5.8 and later, a write-back error of any file of the file
 * system since the call was last made (as fsync reports its file's), before that nothing.
 * Its cost grows with what other processes left unwritten on the same file system, which
 * it writes too.
 */
import { spawn } from 'node:child_process';
import { fsync } from 'node:fs';
import { promisify } from 'node:util';

const fsyncAsync = promisify(fsync);

/**
 * Groups smaller than this take an fsync per file. On the machine measured, `sync -f` with its
 * process start took 3.5–12 ms, and 64 fsyncs of small new files 8–29 ms.
 */
export const SYNCFS_FROM = 64;

/** Whether `sync -f` worked here: unknown until the first group large enough asks. */
let syncfsWorks: boolean | undefined;

/** A file to flush: its descriptor, and the device it is on (`fstat`'s `dev`). */
export interface OpenFile {
  readonly fd: number;
  readonly dev: number;
}

/**
 * Makes `files` durable, content and size (or, for folders, their entries): by `syncfs` once
 * per file system for a group of `from` (SYNCFS_FROM) or more where it works, else by an fsync
 * each, side by side on the thread pool. Rejects with the error of the first that fails.
 * Returns the way it took.
 */
export async function flushFiles(
  files: readonly OpenFile[],
  from: number = SYNCFS_FROM,
): Promise<'syncfs' | 'fsync'> {
  if (files.length >= from && syncfsWorks !== false) {
    const oneOnEach = new Map<number, number>();
    for (const { fd, dev } of files) if (!oneOnEach.has(dev)) oneOnEach.set(dev, fd);
    try {
      await Promise.all([...oneOnEach.values()].map(syncfs));
      syncfsWorks = true;
      return 'syncfs';
    } catch (error) {
      // Once it has worked, a failure of `sync -f` is the file system's: the group is not
      // durable. One that could not start (no process to spare) leaves the group to fsyncs.
      if (syncfsWorks && !(error instanceof NotStarted)) throw error;
      syncfsWorks ??= false;
    }
  }
  await Promise.all(files.map(({ fd }) => fsyncAsync(fd)));
  return 'fsync';
}

class NotStarted extends Error {
  constructor(cause: Error) {
    super(`sync -f could not start: ${cause.message}`, { cause });
  }
}

/** `syncfs` of the file system `fd` is on, by `sync -f` with `fd` as its stdin. */
function syncfs(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sync', ['-f', '/dev/stdin'], { stdio: [fd, 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', (error) => reject(new NotStarted(error)));
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`sync -f: ${stderr.trim() || `exit code ${code}`}`));
    });
  });
}

/** For tests: forget what the last group found out about `sync -f`. */
export function forgetSyncfs(): void {
  syncfsWorks = undefined;
}
