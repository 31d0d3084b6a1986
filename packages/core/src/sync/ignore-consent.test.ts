/**
 * Issue 20, item 15: ignore rules that arrive from the workspace apply only once the local user
 * accepts them. An editor who plants `/.satchelignore` cannot silently stop a victim's uploads,
 * nor (by deleting it) make the victim upload files the victim's rules kept local.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalTree } from '@satchel/client/sync/local-tree.js';
import { type SyncOptions, syncOnce } from '@satchel/client/sync/sync.js';
import { describe, expect, it } from 'vitest';
import { openTemp, tempDir } from '../test-support/temp.js';

async function setup() {
  const { satchel } = await openTemp();
  const victim = await tempDir('sync-victim-');
  const sync = (more: Partial<SyncOptions> = {}) =>
    syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(victim), label: 'victim', ...more });
  const put = async (path: string, content: string) => {
    await mkdir(join(victim, path, '..'), { recursive: true });
    await writeFile(join(victim, path), content);
  };
  const exists = async (path: string) =>
    satchel.stat('ws', path).then(
      () => true,
      () => false,
    );
  return { satchel, victim, sync, put, exists };
}

const PENDING = {
  path: '/.satchelignore',
  reason: 'ignore_rules_changed',
  detail: expect.stringContaining('--accept-ignore'),
};

describe('ignore rules from the workspace need the local user’s consent', () => {
  it('keeps uploading after an editor plants /.satchelignore, and reports the rules pending', async () => {
    const { satchel, victim, sync, put, exists } = await setup();
    await put('notes.md', 'v1');
    expect(await sync()).toMatchObject({ uploaded: 1, notices: [] });

    // Another member of the workspace writes an ignore-everything file.
    await satchel.writeFile('ws', '/.satchelignore', '*\n');
    const downloaded = await sync();
    expect(downloaded.downloaded).toBe(1);
    expect(await readFile(join(victim, '.satchelignore'), 'utf8')).toBe('*\n');
    expect(downloaded.notices).toEqual([PENDING]);

    // The victim keeps working: new files still go up, every cycle says rules are waiting.
    await put('work/result.csv', 'a,b\n');
    await put('notes.md', 'v2');
    const next = await sync();
    expect(next).toMatchObject({ uploaded: 2 });
    expect(next.notices).toEqual([PENDING]);
    expect(await exists('/work/result.csv')).toBe(true);
    expect(await sync()).toMatchObject({ uploaded: 0, notices: [PENDING] });
  });

  it('applies the rules once accepted, and no notice is left', async () => {
    const { satchel, sync, put, exists } = await setup();
    await put('a.txt', 'a');
    await sync();
    await satchel.writeFile('ws', '/.satchelignore', '*.log\n');
    await sync();
    const accepted = await sync({ acceptIgnore: true });
    expect(accepted.notices).toEqual([]);
    await put('debug.log', 'noise');
    expect(await sync()).toMatchObject({ uploaded: 0, notices: [] });
    expect(await exists('/debug.log')).toBe(false);
  });

  it('applies the local user’s own edits at once', async () => {
    const { sync, put, exists } = await setup();
    await put('.satchelignore', 'secret/\n');
    await put('secret/key', 'k');
    await put('open.txt', 'o');
    expect(await sync()).toMatchObject({ uploaded: 2, notices: [] });
    expect(await exists('/secret/key')).toBe(false);
    await put('.satchelignore', 'secret/\n*.tmp\n');
    await put('x.tmp', 't');
    expect(await sync()).toMatchObject({ uploaded: 1, notices: [] });
    expect(await exists('/x.tmp')).toBe(false);
  });

  it('keeps the accepted rules when the workspace deletes the file: nothing secret goes up', async () => {
    const { satchel, victim, sync, put, exists } = await setup();
    await put('.satchelignore', '.env\n');
    await put('.env', 'TOKEN=secret');
    await sync();
    await satchel.remove('ws', '/.satchelignore');
    const removed = await sync();
    expect(removed.deletedLocal).toBe(1);
    await expect(readFile(join(victim, '.satchelignore'))).rejects.toThrow();
    await put('.env', 'TOKEN=rotated');
    const next = await sync();
    expect(next.notices).toEqual([PENDING]);
    expect(await exists('/.env')).toBe(false);
  });

  it('does not apply the workspace’s rules in a fresh tree until accepted', async () => {
    const { satchel, victim, sync, put, exists } = await setup();
    await satchel.writeFile('ws', '/.satchelignore', 'out/\n');
    expect(await sync()).toMatchObject({ downloaded: 1, notices: [PENDING] });
    await put('out/report.txt', 'r');
    expect(await sync()).toMatchObject({ uploaded: 1, notices: [PENDING] });
    expect(await exists('/out/report.txt')).toBe(true);
    // Accepting applies what the tree holds, the file the user could read.
    expect(await readFile(join(victim, '.satchelignore'), 'utf8')).toBe('out/\n');
    await sync({ acceptIgnore: true });
    await put('out/second.txt', 's');
    expect(await sync()).toMatchObject({ uploaded: 0, notices: [] });
  });
});
