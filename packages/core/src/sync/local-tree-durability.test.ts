/**
 * LocalTree makes a file's name durable, not only its content, before it reports the file
 * written: a rename, and a folder made for it, are in the kernel's memory until their folder
 * is flushed, and the sync state records a file as soon as it is reported. A power cut that kept
 * the state but lost the rename would read as the user deleting the file. Power cuts cannot be
 * staged here; the system calls can be watched: `strace` of a process writing through the tree
 * (test-support/tree-writer.ts) must show, for every folder changed, an fsync of that folder or
 * a `syncfs` between the change and the call's return. Linux; without strace the test is
 * skipped, unless CI is set (.ci/run installs it).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/temp.js';

const SCRIPT = fileURLToPath(new URL('../test-support/tree-writer.ts', import.meta.url));
// `--import tsx` resolves from the working directory: the package that has tsx installed.
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HAS_STRACE = spawnSync('strace', ['-V']).status === 0;
const REQUIRED = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== '0';
const SYSCALLS = 'rename,renameat,renameat2,mkdir,mkdirat,fsync,syncfs,openat,access,faccessat';

/** What one phase of the writer (up to its mark) did to the tree's folders. */
interface Phase {
  /** Folders changed (a rename into them, a folder made in them). */
  readonly changed: Set<string>;
  /** Of those, folders neither fsynced nor covered by a syncfs after their last change. */
  readonly unflushed: Set<string>;
  /** Every path fsynced (files and folders). */
  readonly fsynced: Set<string>;
  /** syncfs calls made while a changed folder was unflushed. */
  syncfsAfterChange: number;
}

const FD_ARG = /"\/proc\/self\/fd\/(\d+)\/[^"]*"/g;

/** Reads strace's log (`-f -y`) into phases, keyed by the writer's marks. */
function phases(log: string): Map<string, Phase> {
  const out = new Map<string, Phase>();
  const folderOf = new Map<string, string>();
  let phase: Phase | null = null;
  const fresh = (): Phase => ({
    changed: new Set(),
    unflushed: new Set(),
    fsynced: new Set(),
    syncfsAfterChange: 0,
  });
  for (const line of log.split('\n')) {
    const call = /^\d+\s+(\w+)\((.*)$/.exec(line);
    if (!call) continue;
    const [, name, rest] = call as unknown as [string, string, string];
    const mark = /"\/satchel-mark\/([\w-]+)"/.exec(rest);
    if (mark) {
      if (phase !== null) out.set(mark[1] as string, phase);
      phase = fresh();
      continue;
    }
    if (name === 'openat') {
      const opened = /= (\d+)<([^>]+)>$/.exec(rest);
      if (opened && !rest.includes('"/dev/stdin"')) {
        folderOf.set(opened[1] as string, opened[2] as string);
      }
      continue;
    }
    if (phase === null) continue;
    if (name.startsWith('rename') || name.startsWith('mkdir')) {
      if (/\) = -1/.test(rest)) continue;
      const fds = [...rest.matchAll(FD_ARG)].map((m) => m[1] as string);
      // mkdir: the folder it was made in; rename: the folder the name went to (the last path).
      const fd = name.startsWith('mkdir') ? fds[0] : fds[fds.length - 1];
      const folder = fd === undefined ? undefined : folderOf.get(fd);
      if (folder !== undefined) {
        phase.changed.add(folder);
        phase.unflushed.add(folder);
      }
    } else if (name === 'fsync') {
      const folder = /^\d+<([^>]+)>/.exec(rest)?.[1];
      if (folder !== undefined) {
        phase.fsynced.add(folder);
        phase.unflushed.delete(folder);
      }
    } else if (name === 'syncfs' && phase.unflushed.size > 0) {
      phase.unflushed.clear();
      phase.syncfsAfterChange++;
    }
  }
  return out;
}

describe.skipIf(process.platform !== 'linux' || (!HAS_STRACE && !REQUIRED))(
  'LocalTree: names made durable before a write is reported',
  () => {
    it('flushes every folder a write, a write group or a rename changed, before it returns', async () => {
      expect(HAS_STRACE, 'strace is not installed: apt-get install -y strace').toBe(true);
      const dir = await tempDir('satchel-durable-');
      const root = join(dir, 'root');
      const log = join(dir, 'strace.log');
      const run = spawnSync(
        'strace',
        ['-f', '-y', '-qq', '-o', log, '-e', `trace=${SYSCALLS}`].concat([
          process.execPath,
          '--import',
          'tsx',
          SCRIPT,
          root,
        ]),
        { cwd: PACKAGE_ROOT, encoding: 'utf8' },
      );
      expect(run.status, run.stderr).toBe(0);
      const seen = phases(readFileSync(log, 'utf8'));
      expect([...seen.keys()]).toEqual(['write', 'large-group', 'small-group', 'rename']);
      for (const [name, phase] of seen) {
        expect(phase.changed.size, `${name}: folders changed`).toBeGreaterThan(0);
        expect([...phase.unflushed], `${name}: folders left unflushed`).toEqual([]);
      }
      const at = (...parts: string[]) => join(root, ...parts);
      // One file into new folders: the target, and each folder a folder was made in.
      const write = seen.get('write') as Phase;
      expect([...write.fsynced]).toEqual(
        expect.arrayContaining([at('one', 'two'), at('one'), root]),
      );
      // A group large enough for syncfs: one more after its renames, no fsync per folder.
      const large = seen.get('large-group') as Phase;
      expect(large.syncfsAfterChange).toBeGreaterThan(0);
      expect([...large.changed].filter((folder) => large.fsynced.has(folder))).toEqual([]);
      // A small group: an fsync of each folder it changed.
      const small = seen.get('small-group') as Phase;
      expect(small.syncfsAfterChange).toBe(0);
      expect([...small.fsynced]).toEqual(
        expect.arrayContaining([root, at('small'), at('small', 'd0'), at('small', 'd2')]),
      );
      // A rename: the folder it left too, or the file could come back at its old name.
      const rename = seen.get('rename') as Phase;
      expect([...rename.fsynced]).toEqual(
        expect.arrayContaining([at('moved', 'here'), at('moved'), at('one', 'two')]),
      );
    });
  },
);
