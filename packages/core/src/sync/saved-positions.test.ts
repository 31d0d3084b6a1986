/**
 * Cheap rescans and saved positions: a cycle against a workspace that has not moved since the
 * state matched it lists nothing and hashes nothing; any other writer's change is still seen.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rename, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import { LocalTree } from '@satchel/client/sync/local-tree.js';
import { syncOnce } from '@satchel/client/sync/sync.js';
import type { SyncTree } from '@satchel/client/sync/tree.js';
import { describe, expect, it } from 'vitest';
import { openTemp, tempDir } from '../test-support/temp.js';

/** The engine, counting the listings sync asks it for. */
function counting(satchel: Satchel): { satchel: Satchel; listings: () => number } {
  let listings = 0;
  const proxy = new Proxy(satchel, {
    get(target, key, receiver) {
      if (key === 'list') listings++;
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { satchel: proxy, listings: () => listings };
}

/** A local tree that counts the files it reads (sync reads a file to hash or upload it). */
function readCounting(root: string): { tree: SyncTree; reads: () => number } {
  const tree = new LocalTree(root);
  let reads = 0;
  const read = tree.read.bind(tree);
  tree.read = (path: string) => {
    reads++;
    return read(path);
  };
  return { tree, reads: () => reads };
}

async function put(dir: string, path: string, content: string): Promise<void> {
  await mkdir(join(dir, path, '..'), { recursive: true });
  await writeFile(join(dir, path), content);
}

/** The engine, counting calls by name; `before` runs ahead of each call. */
function calls(satchel: Satchel, before?: (name: string) => Promise<void>) {
  const count = new Map<string, number>();
  const proxy = new Proxy(satchel, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      return async (...args: unknown[]) => {
        count.set(key, (count.get(key) ?? 0) + 1);
        await before?.(key);
        return value.apply(target, args);
      };
    },
  });
  return { satchel: proxy, count: (name: string) => count.get(name) ?? 0 };
}

describe('saved positions', () => {
  it('are saved after a push from its own writes alone, and from the feed when another writer came in', async () => {
    const { satchel: engine } = await openTemp();
    const dir = await tempDir('settled-own-');
    for (let i = 0; i < 30; i++) await put(dir, `d${i % 3}/f${i}.txt`, `file ${i}\n`);
    const alone = calls(engine);
    const sync = (satchel: Satchel) =>
      syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(dir) });
    expect(await sync(alone.satchel)).toMatchObject({ uploaded: 30 });
    expect(alone.count('listChanges')).toBe(0);
    const listed = alone.count('list');
    expect(await sync(alone.satchel)).toMatchObject({ uploaded: 0, downloaded: 0, unchanged: 30 });
    expect(alone.count('list')).toBe(listed);

    // Another writer's change lands while the next push uploads: the feed shows it, the
    // position is not saved, and the next cycle lists the workspace and brings it over.
    for (let i = 30; i < 40; i++) await put(dir, `d${i % 3}/f${i}.txt`, `file ${i}\n`);
    let raced = false;
    const racing = calls(engine, async (name) => {
      if ((name === 'uploadFiles' || name === 'writeFiles') && !raced) {
        raced = true;
        await engine.writeFile('ws', '/elsewhere.txt', 'written meanwhile\n');
      }
    });
    expect(await sync(racing.satchel)).toMatchObject({ uploaded: 10 });
    expect(racing.count('listChanges')).toBeGreaterThan(0);
    expect(racing.count('list')).toBe(0);
    expect(await sync(racing.satchel)).toMatchObject({ downloaded: 1 });
    expect(racing.count('list')).toBe(1);
    expect(await readFile(join(dir, 'elsewhere.txt'), 'utf8')).toBe('written meanwhile\n');
  });

  it('saves the position after a push whose feed check reads several pages side by side', async () => {
    const { satchel: engine } = await openTemp();
    const { satchel, listings } = counting(engine);
    const dir = await tempDir('settled-pages-');
    const files = 2100; // three feed pages (1000, 1000, 100), asked for at once
    for (let i = 0; i < files; i++) await put(dir, `d${i % 13}/f${i}.txt`, `file ${i}\n`);
    const sync = () => syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(dir) });
    expect(await sync()).toMatchObject({ uploaded: files });
    const afterPush = listings();
    expect(await sync()).toMatchObject({ uploaded: 0, downloaded: 0, unchanged: files });
    expect(listings()).toBe(afterPush);
    // A change of another writer after the push is still seen.
    await engine.writeFile('ws', '/d3/f3.txt', 'changed elsewhere\n');
    expect(await sync()).toMatchObject({ downloaded: 1 });
    expect(await readFile(join(dir, 'd3/f3.txt'), 'utf8')).toBe('changed elsewhere\n');
  });

  it('skips the listing while the workspace has not moved, and sees the next change', async () => {
    const { satchel: engine } = await openTemp();
    const { satchel, listings } = counting(engine);
    const dir = await tempDir('settled-');
    for (let i = 0; i < 20; i++) await put(dir, `d${i % 3}/f${i}.txt`, `file ${i}\n`);
    const sync = () => syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(dir) });
    expect(await sync()).toMatchObject({ uploaded: 20 });
    const afterPush = listings();
    // The push's own writes are checked against the change feed: no listing is needed again.
    expect(await sync()).toMatchObject({ uploaded: 0, downloaded: 0, unchanged: 20 });
    expect(await sync()).toMatchObject({ uploaded: 0, downloaded: 0, unchanged: 20 });
    expect(listings()).toBe(afterPush);

    // Another writer moves the workspace: the next cycle lists it and brings the change over.
    await engine.writeFile('ws', '/d1/f1.txt', 'changed elsewhere\n');
    await engine.remove('ws', '/d2/f2.txt');
    expect(await sync()).toMatchObject({ downloaded: 1, deletedLocal: 1 });
    expect(listings()).toBeGreaterThan(afterPush);
    expect(await readFile(join(dir, 'd1/f1.txt'), 'utf8')).toBe('changed elsewhere\n');
    await expect(stat(join(dir, 'd2/f2.txt'))).rejects.toThrow();
  });

  it('hashes only files whose size, mtime or inode changed', async () => {
    const { satchel } = await openTemp();
    const dir = await tempDir('settled-ino-');
    await put(dir, 'a.txt', 'aaaa\n');
    await put(dir, 'b.txt', 'bbbb\n');
    // Whole seconds, so the replacement below can carry exactly the same mtime.
    await utimes(join(dir, 'a.txt'), 1_700_000_000, 1_700_000_000);
    await syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(dir) });
    const quiet = readCounting(dir);
    await syncOnce({ satchel, workspace: 'ws', tree: quiet.tree });
    expect(quiet.reads()).toBe(0);

    // Same size, same mtime, other content in another file renamed over it: a new inode.
    const before = await stat(join(dir, 'a.txt'));
    await writeFile(join(dir, 'a.tmp'), 'AAAA\n');
    await utimes(join(dir, 'a.tmp'), 1_700_000_000, 1_700_000_000);
    await rename(join(dir, 'a.tmp'), join(dir, 'a.txt'));
    const after = await stat(join(dir, 'a.txt'));
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
    expect(after.ino).not.toBe(before.ino);
    const counted = readCounting(dir);
    expect(await syncOnce({ satchel, workspace: 'ws', tree: counted.tree })).toMatchObject({
      uploaded: 1,
    });
    expect((await satchel.readText('ws', '/a.txt')).text).toBe('AAAA\n');
  });

  it('rehydrates an emptied tree, then rescans it without hashing what it wrote', async () => {
    const { satchel } = await openTemp();
    const source = await tempDir('settled-src-');
    for (let i = 0; i < 12; i++) await put(source, `x/${i}.txt`, `content ${i}\n`);
    await syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(source) });

    const fresh = await tempDir('settled-reset-');
    const restore = await syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(fresh) });
    expect(restore).toMatchObject({ reset: true, downloaded: 12, uploaded: 0 });
    const counted = readCounting(fresh);
    expect(await syncOnce({ satchel, workspace: 'ws', tree: counted.tree })).toMatchObject({
      uploaded: 0,
      downloaded: 0,
      unchanged: 12,
    });
    expect(counted.reads()).toBe(0);
  });
});

describe('a cycle with nothing to do', () => {
  it('reports what it skips, and a file touched since the last cycle is recorded again', async () => {
    const { satchel } = await openTemp();
    const dir = await tempDir('quiet-');
    for (let i = 0; i < 12; i++) await put(dir, `d${i % 2}/f${i}.txt`, `file ${i}\n`);
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    const sync = (tree: SyncTree) => syncOnce({ satchel, workspace: 'ws', tree });
    expect(await sync(new LocalTree(dir))).toMatchObject({ uploaded: 12 });
    const skipped = [{ path: 'pipe', reason: 'special_file' }];
    const quiet = readCounting(dir);
    expect(await sync(quiet.tree)).toMatchObject({ uploaded: 0, unchanged: 12, skipped });
    expect(quiet.reads()).toBe(0);

    // Same content, a new mtime: hashed, found in step and recorded, not uploaded.
    await utimes(join(dir, 'd0/f0.txt'), new Date(), new Date(Date.now() + 5000));
    const touched = readCounting(dir);
    expect(await sync(touched.tree)).toMatchObject({ uploaded: 0, downloaded: 0, skipped });
    expect(touched.reads()).toBe(1);
    const after = readCounting(dir);
    expect(await sync(after.tree)).toMatchObject({ uploaded: 0, unchanged: 12, skipped });
    expect(after.reads()).toBe(0);
  });
});
