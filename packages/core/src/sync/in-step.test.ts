/**
 * The in-step mark (issue 19, item 3): a cycle with nothing changed on either side ends after a
 * stat walk, and any change on either side, or to the state since the mark, is still seen.
 */
import { appendFile, mkdir, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkInStep } from '@satchel/client/sync/in-step.js';
import { LocalTree } from '@satchel/client/sync/local-tree.js';
import { syncOnce } from '@satchel/client/sync/sync.js';
import { describe, expect, it } from 'vitest';
import { catFile, openTemp, tempDir } from '../test-support/temp.js';

async function put(dir: string, path: string, content: string): Promise<void> {
  await mkdir(join(dir, path, '..'), { recursive: true });
  await writeFile(join(dir, path), content);
}

/** A workspace and a tree of 20 files, pushed: the push left an in-step mark. */
async function pushed(options: { exclude?: string[] } = {}) {
  const { satchel } = await openTemp();
  const dir = await tempDir('in-step-');
  for (let i = 0; i < 20; i++) await put(dir, `d${i % 4}/f${i}.txt`, `file ${i}\n`);
  await put(dir, 'notes.log', 'local only\n');
  const sync = (more: { exclude?: string[] } = options) =>
    syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(dir), ...more });
  const check = (more: { exclude?: string[] } = options) =>
    checkInStep(new LocalTree(dir), 'ws', () => satchel.getWorkspace('ws'), more);
  expect(await sync()).toMatchObject({ uploaded: options.exclude ? 20 : 21 });
  return { satchel, dir, sync, check };
}

describe('the in-step mark', () => {
  it('tells a cycle with nothing changed that both sides are in step, without planning', async () => {
    const { sync, check } = await pushed();
    expect(await check()).toMatchObject({ inStep: true, files: 21 });
    expect(await sync()).toMatchObject({ uploaded: 0, downloaded: 0, unchanged: 21, skipped: [] });
    // Still there: a cycle in step writes nothing, the mark included.
    expect(await check()).toMatchObject({ inStep: true });
  });

  it('is written by a cycle with nothing to do when none holds (a state from before marks)', async () => {
    const { dir, sync, check } = await pushed();
    await rm(join(dir, '.satchel-sync/in-step.json'));
    expect(await check()).toBeNull();
    expect(await sync()).toMatchObject({ uploaded: 0, downloaded: 0, unchanged: 21 });
    expect(await check()).toMatchObject({ inStep: true, files: 21 });
  });

  it('sees a file changed in place at the same size, replaced, added or deleted', async () => {
    const { satchel, dir, sync, check } = await pushed();
    await writeFile(join(dir, 'd0/f0.txt'), 'FILE 0\n');
    expect(await check()).toMatchObject({ inStep: false });
    expect(await sync()).toMatchObject({ uploaded: 1 });
    expect((await catFile(satchel, '/d0/f0.txt')).toString()).toBe('FILE 0\n');

    // Same size and mtime, another inode: a file renamed over it.
    const old = await stat(join(dir, 'd1/f1.txt'));
    await writeFile(join(dir, 'new.tmp'), 'FILE 1\n');
    await utimes(join(dir, 'new.tmp'), old.atime, old.mtime);
    await rename(join(dir, 'new.tmp'), join(dir, 'd1/f1.txt'));
    expect(await sync()).toMatchObject({ uploaded: 1 });
    expect((await catFile(satchel, '/d1/f1.txt')).toString()).toBe('FILE 1\n');

    await put(dir, 'd2/added.txt', 'added\n');
    expect(await sync()).toMatchObject({ uploaded: 1 });
    await rm(join(dir, 'd3/f3.txt'));
    expect(await sync()).toMatchObject({ deletedRemote: 1 });
    expect(await check()).toMatchObject({ inStep: true, files: 21 });
  });

  it("sees the workspace's changes, a link added and other rules", async () => {
    const { satchel, dir, sync } = await pushed({ exclude: ['*.log'] });
    await satchel.writeFile('ws', '/d0/f0.txt', 'from the workspace\n');
    expect(await sync()).toMatchObject({ downloaded: 1 });

    await symlink('/etc', join(dir, 'etc-link'));
    expect((await sync()).skipped).toEqual([{ path: 'etc-link', reason: 'symlink' }]);

    // Without the exclusion the rules are others: the log is a file to sync now.
    expect(await sync({})).toMatchObject({ uploaded: 1 });
    expect((await catFile(satchel, '/notes.log')).toString()).toBe('local only\n');
  });

  it('holds only for the state it was written with, and while nothing is journalled', async () => {
    const { dir, check } = await pushed();
    const state = join(dir, '.satchel-sync');
    expect(await check()).toMatchObject({ inStep: true });
    await appendFile(join(state, 'journal.jsonl'), '{"op":"del","path":"/d0/f0.txt"}\n');
    expect(await check()).toBeNull();
    await writeFile(join(state, 'journal.jsonl'), '');
    expect(await check()).toMatchObject({ inStep: true });
    await appendFile(join(state, 'state.json'), ' ');
    expect(await check()).toBeNull();
    expect(await checkInStep(new LocalTree(dir), 'other', async () => ({ seq: 0 }), {})).toBeNull();
  });
});
