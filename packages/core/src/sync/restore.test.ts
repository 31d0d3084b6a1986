/**
 * A restored tree is not a deletion (restore.ts): files a tree lost to a restore (gitignored, all
 * mtimes new, or a restored boot) are brought back from the workspace, never deleted there;
 * a user's own deletion still goes across.
 */
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalTree } from '@satchel/client/sync/local-tree.js';
import { type SyncOptions, syncOnce } from '@satchel/client/sync/sync.js';
import { describe, expect, it } from 'vitest';
import type { SatchelEngine } from '../engine/satchel-engine.js';
import { openTemp, tempDir } from '../test-support/temp.js';

async function put(dir: string, path: string, content: string): Promise<void> {
  await mkdir(join(dir, path, '..'), { recursive: true });
  await writeFile(join(dir, path), content);
}

async function files(satchel: SatchelEngine): Promise<string[]> {
  const page = await satchel.list('ws', { recursive: true, limit: 1000 });
  return page.items
    .filter((i) => i.type === 'file')
    .map((i) => i.path)
    .sort();
}

/** A synced tree with a .gitignore, two tracked sources and two ignored-by-git files. */
async function synced() {
  const { satchel } = await openTemp();
  const dir = await tempDir('restore-');
  const sync = (more: Partial<SyncOptions> = {}) =>
    syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(dir), label: 'sbx', ...more });
  await put(dir, '.gitignore', '.env\ndist/\n');
  await put(dir, 'src/a.ts', 'a\n');
  await put(dir, 'src/b.ts', 'b\n');
  await put(dir, 'src/c.ts', 'c\n');
  await put(dir, '.env', 'SECRET=1\n');
  await put(dir, 'dist/out.js', 'built\n');
  expect(await sync()).toMatchObject({ uploaded: 6 });
  return { satchel, dir, sync };
}

const ALL = ['/.env', '/.gitignore', '/dist/out.js', '/src/a.ts', '/src/b.ts', '/src/c.ts'];

describe('sync after a restore', () => {
  it('brings gitignored files back instead of deleting them, and reports it', async () => {
    const { satchel, dir, sync } = await synced();
    await rm(join(dir, '.env'));
    await rm(join(dir, 'dist'), { recursive: true });
    const report = await sync();
    expect(report).toMatchObject({ deletedRemote: 0, downloaded: 2, stoppedReason: null });
    expect(report.notices).toEqual([
      expect.objectContaining({ reason: 'restore_detected', path: '/.env' }),
    ]);
    expect(report.notices[0]?.detail).toMatch(/2 file\(s\) missing .*gitignore/);
    expect(await files(satchel)).toEqual(ALL);
  });

  it('still sends a deletion the user made across, and gitignored ones with deleteRestored', async () => {
    const { satchel, dir, sync } = await synced();
    await rm(join(dir, 'src/a.ts'));
    expect(await sync()).toMatchObject({ deletedRemote: 1, notices: [] });
    await rm(join(dir, '.env'));
    expect(await sync({ deleteRestored: true })).toMatchObject({ deletedRemote: 1, notices: [] });
    expect(await files(satchel)).toEqual(['/.gitignore', '/dist/out.js', '/src/b.ts', '/src/c.ts']);
  });

  it('treats absences as a restore when every kept file has a new mtime', async () => {
    const { satchel, dir, sync } = await synced();
    await rm(join(dir, 'src/a.ts'));
    await rm(join(dir, 'src/b.ts'));
    const later = new Date(Date.now() + 3_600_000);
    for (const path of ['.gitignore', 'src/c.ts', '.env', 'dist/out.js']) {
      await utimes(join(dir, path), later, later);
    }
    const report = await sync();
    expect(report).toMatchObject({ deletedRemote: 0, downloaded: 2 });
    expect(report.notices[0]?.detail).toMatch(/new modification time/);
    expect(await files(satchel)).toEqual(ALL);
  });

  it('deletes nothing after a restored boot, whatever is missing', async () => {
    const { satchel, dir, sync } = await synced();
    await rm(join(dir, 'src'), { recursive: true });
    const report = await sync({ restored: true });
    expect(report).toMatchObject({ deletedRemote: 0, downloaded: 3 });
    expect(report.notices[0]?.detail).toMatch(/booted from scratch/);
    expect(await files(satchel)).toEqual(ALL);
  });
});
