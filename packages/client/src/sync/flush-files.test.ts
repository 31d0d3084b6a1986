/**
 * flushFiles: which way a group's files are made durable, and what happens where `sync -f`
 * is missing or fails. A stand-in `sync` on PATH plays coreutils' program failing.
 */
import {
  chmodSync,
  closeSync,
  fstatSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flushFiles, forgetSyncfs, type OpenFile, SYNCFS_FROM } from './flush-files.js';

let dir: string;
let fds: number[] = [];
const path = process.env.PATH;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flush-'));
  forgetSyncfs();
});

afterEach(() => {
  for (const fd of fds) closeSync(fd);
  fds = [];
  process.env.PATH = path;
  rmSync(dir, { recursive: true, force: true });
});

/** `count` new files with a line each, open for writing. */
function files(count: number): OpenFile[] {
  const opened = Array.from({ length: count }, (_, i) => {
    const fd = openSync(join(dir, `f-${fds.length + i}`), 'wx', 0o644);
    writeSync(fd, `file ${i}\n`);
    return { fd, dev: fstatSync(fd).dev };
  });
  fds.push(...opened.map(({ fd }) => fd));
  return opened;
}

/** A `sync` on PATH, ahead of coreutils', that fails as `sync -f` can. */
function failingSync(): void {
  writeFileSync(
    join(dir, 'sync'),
    '#!/bin/sh\necho "sync: error syncing /dev/stdin: Input/output error" >&2\nexit 1\n',
  );
  chmodSync(join(dir, 'sync'), 0o755);
  process.env.PATH = `${dir}:${path}`;
}

describe.skipIf(process.platform !== 'linux')('flushing a group of new files', () => {
  it('takes one syncfs for a large group, an fsync each for a small one', async () => {
    expect(await flushFiles(files(SYNCFS_FROM))).toBe('syncfs');
    expect(await flushFiles(files(SYNCFS_FROM - 1))).toBe('fsync');
  });

  it('takes the fsyncs where `sync` is not there, and keeps to them', async () => {
    process.env.PATH = join(dir, 'nothing-here');
    expect(await flushFiles(files(SYNCFS_FROM))).toBe('fsync');
    process.env.PATH = path;
    expect(await flushFiles(files(SYNCFS_FROM))).toBe('fsync');
  });

  it('takes the fsyncs where `sync -f` refuses from the start', async () => {
    failingSync();
    expect(await flushFiles(files(SYNCFS_FROM))).toBe('fsync');
  });

  it('fails the group when `sync -f`, having worked, reports an error', async () => {
    expect(await flushFiles(files(SYNCFS_FROM))).toBe('syncfs');
    failingSync();
    await expect(flushFiles(files(SYNCFS_FROM))).rejects.toThrow(/Input\/output error/);
  });
});
