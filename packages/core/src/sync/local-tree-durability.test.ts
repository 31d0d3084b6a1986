/**
 * LocalTree makes a file's name durable, not only its content, before the sync state can record
 * it: a rename, a folder made or a file removed is in the kernel's memory until its folder is
 * flushed. A power cut that kept the state but lost the rename would read as the user deleting
 * the file; one that lost a removal would bring the file back as a new one. Power cuts cannot be
 * staged here; the system calls can be watched: `strace` of a process using the tree
 * (test-support/tree-writer.ts) must show, for every folder changed, an fsync of that folder or
 * a `syncfs` before a write returns, and before the state's journal is written after removals.
 * Linux; without strace the test is skipped, unless CI is set (.ci/run installs it).
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
const SYSCALLS =
  'rename,renameat,renameat2,mkdir,mkdirat,unlink,unlinkat,rmdir,fsync,syncfs,openat,access,faccessat';

/** What one phase of the writer (up to its mark) did to the tree's folders. */
interface Phase {
  /** Folders changed (a rename into them, a folder made or removed in them, a file removed). */
  readonly changed: Set<string>;
  /** Of those, folders neither fsynced nor covered by a syncfs after their last change. */
  readonly unflushed: Set<string>;
  /** Every path fsynced (files and folders). */
  readonly fsynced: Set<string>;
  /** syncfs calls made while a changed folder was unflushed. */
  syncfsAfterChange: number;
  /** The folders unflushed when the sync state's journal was opened to be written, each time. */
  readonly unflushedWhenJournaled: string[][];
}

const FD_ARG = /"\/proc\/self\/fd\/(\d+)\/([^"]*)"/g;

/**
 * The calls of strace's log (`-f`) as each ended: a call another thread's interrupted is printed
 * as `<unfinished ...>`, its end as `<... name resumed>` on a later line of the same thread.
 */
function* calls(log: string): Generator<{ name: string; rest: string }> {
  const unfinished = new Map<string, { name: string; rest: string }>();
  for (const line of log.split('\n')) {
    const resumed = /^(\d+)\s+<\.\.\. (\w+) resumed>(.*)$/.exec(line);
    if (resumed) {
      const started = unfinished.get(resumed[1] as string);
      unfinished.delete(resumed[1] as string);
      if (started) yield { name: started.name, rest: started.rest + (resumed[3] as string) };
      continue;
    }
    const call = /^(\d+)\s+(\w+)\((.*)$/.exec(line);
    if (!call) continue;
    const [, pid, name, rest] = call as unknown as [string, string, string, string];
    const cut = / <unfinished \.\.\.>$/.exec(rest);
    if (cut) unfinished.set(pid, { name, rest: rest.slice(0, cut.index) });
    else yield { name, rest };
  }
}

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
    unflushedWhenJournaled: [],
  });
  for (const { name, rest } of calls(log)) {
    const mark = /"\/satchel-mark\/([\w-]+)"/.exec(rest);
    if (mark) {
      if (phase !== null) out.set(mark[1] as string, phase);
      phase = fresh();
      continue;
    }
    if (name === 'openat') {
      if (phase !== null && rest.includes('/journal.jsonl"')) {
        phase.unflushedWhenJournaled.push([...phase.unflushed]);
      }
      const opened = /= (\d+)<([^>]+)>$/.exec(rest);
      if (opened && !rest.includes('"/dev/stdin"')) {
        folderOf.set(opened[1] as string, opened[2] as string);
      }
      continue;
    }
    if (phase === null) continue;
    if (/^(rename|mkdir|unlink|rmdir)/.test(name)) {
      if (/\)\s+= -1/.test(rest)) continue;
      const paths = [...rest.matchAll(FD_ARG)];
      // A rename changes the folder the name went to (its last path); the others, the folder
      // of their one path.
      const last = paths[paths.length - 1];
      const folder = last === undefined ? undefined : folderOf.get(last[1] as string);
      if (folder === undefined || last === undefined) continue;
      // A folder removed needs no flush of its own: its parent's does.
      if (name === 'rmdir') phase.unflushed.delete(`${folder}/${last[2]}`);
      phase.changed.add(folder);
      phase.unflushed.add(folder);
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
  'LocalTree: names made durable before the state records them',
  () => {
    it('flushes the folders a write, a write group, a move or a removal changed', async () => {
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
      expect([...seen.keys()]).toEqual(['write', 'large-group', 'small-group', 'rename', 'remove']);
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
      // Removals: flushed before the state's journal is written to, not at each removal.
      const remove = seen.get('remove') as Phase;
      expect(remove.unflushedWhenJournaled).toEqual([[]]);
      expect([...remove.fsynced]).toEqual(expect.arrayContaining([at('large', 'd0'), root]));
    });
  },
);
