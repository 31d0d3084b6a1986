import { open, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { catFile, openTemp, readAll } from '../test-support/temp.js';
import { BLOBS_DIR, DATABASE_FILE, openSatchel } from './open.js';

async function blobFile(data: string, hash: string): Promise<string> {
  return join(data, BLOBS_DIR, hash.slice(0, 2), hash);
}

async function flipByte(file: string, position: number): Promise<void> {
  const fh = await open(file, 'r+');
  try {
    const buf = Buffer.alloc(1);
    await fh.read(buf, 0, 1, position);
    buf[0] = (buf[0] ?? 0) ^ 0xff;
    await fh.write(buf, 0, 1, position);
  } finally {
    await fh.close();
  }
}

describe('damaged content', () => {
  it('a damaged small file fails with INTEGRITY and fsck names it', async () => {
    const { satchel, data } = await openTemp();
    const info = await satchel.writeFile('ws', '/small.txt', 'precious');
    // Read good first: neither the rows the read cache keeps nor the verified copy of the
    // content (kernel/verified-inline.ts) may hide the damage done after.
    expect((await catFile(satchel, '/small.txt')).toString()).toBe('precious');
    expect((await catFile(satchel, '/small.txt')).toString()).toBe('precious');
    const db = new BetterSqlite3(join(data, DATABASE_FILE));
    db.prepare('update blobs set data = ? where hash = ?').run(Buffer.from('tampered'), info.hash);
    db.close();
    await expect(satchel.readFile('ws', '/small.txt')).rejects.toMatchObject({ code: 'INTEGRITY' });
    const report = await satchel.fsck();
    expect(report.ok).toBe(false);
    expect(report.corrupt.map((c) => c.hash)).toEqual([info.hash]);
  });

  it('a damaged small file is an INTEGRITY item of a batch download, its neighbour whole', async () => {
    const { satchel, data } = await openTemp();
    const infos = await satchel.writeFiles('ws', [
      { path: '/a.txt', content: 'alpha' },
      { path: '/b.txt', content: 'bravo' },
    ]);
    const download = async () => {
      const got: string[] = [];
      const asked = infos.map((info) => ({ path: info.path, version: info.seq }));
      for await (const item of await satchel.downloadFiles('ws', asked)) {
        got.push(
          'error' in item
            ? `${item.path}: ${item.error.code}`
            : `${item.path}: ${(await readAll(item.body)).toString()}`,
        );
      }
      return got;
    };
    // Downloaded good first, and read: no copy kept of either may hide the damage done after.
    expect(await download()).toEqual(['/a.txt: alpha', '/b.txt: bravo']);
    expect((await catFile(satchel, '/b.txt')).toString()).toBe('bravo');
    const db = new BetterSqlite3(join(data, DATABASE_FILE));
    db.prepare('update blobs set data = ? where hash = ?').run(
      Buffer.from('tamper'),
      infos[1]?.hash,
    );
    db.close();
    expect(await download()).toEqual(['/a.txt: alpha', '/b.txt: INTEGRITY']);
  });

  it('a damaged large file never yields the damaged chunk; the rest stays readable', async () => {
    const { satchel, data } = await openTemp();
    const content = Buffer.alloc(3 * 1024 * 1024, 1);
    const info = await satchel.writeFile('ws', '/large.bin', content);
    await flipByte(await blobFile(data, info.hash ?? ''), 2 * 1024 * 1024 + 10);
    const { body } = await satchel.readFile('ws', '/large.bin');
    const received: Buffer[] = [];
    await expect(
      (async () => {
        for await (const piece of body) received.push(Buffer.from(piece));
      })(),
    ).rejects.toMatchObject({ code: 'INTEGRITY' });
    expect(Buffer.concat(received).length).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(Buffer.concat(received).every((b) => b === 1)).toBe(true);
    const early = await satchel.readFile('ws', '/large.bin', { range: { start: 0, end: 100 } });
    expect((await readAll(early.body)).length).toBe(100);
    expect((await satchel.fsck()).ok).toBe(false);
    // Writing the same content again heals it.
    await satchel.writeFile('ws', '/again.bin', content);
    expect((await catFile(satchel, '/large.bin')).equals(content)).toBe(true);
    expect((await satchel.fsck()).ok).toBe(true);
  });

  it('a lost large file is INTEGRITY, not an empty read', async () => {
    const { satchel, data } = await openTemp();
    const info = await satchel.writeFile('ws', '/lost.bin', Buffer.alloc(100_000, 2));
    await unlink(await blobFile(data, info.hash ?? ''));
    await expect(satchel.readFile('ws', '/lost.bin')).rejects.toMatchObject({ code: 'INTEGRITY' });
  });
});

describe('fsck', () => {
  it('is clean on a healthy store and reports orphans without failing', async () => {
    const { satchel, data } = await openTemp({ limits: { inlineThreshold: 10 } });
    await satchel.writeFile('ws', '/a', 'aaaaaaaaaaaaaaaaaaaa');
    await satchel.writeFile('ws', '/b', 'small');
    expect(await satchel.fsck()).toMatchObject({ ok: true, blobsChecked: 2, orphans: [] });
    await satchel.createWorkspace('other');
    await satchel.writeFile('other', '/x', 'only here, and large');
    await satchel.deleteWorkspace('other');
    const report = await satchel.fsck();
    expect(report.ok).toBe(true);
    expect(report.orphans).toHaveLength(1);
    expect((await readdir(join(data, BLOBS_DIR, 'tmp'))).length).toBe(0);
  });

  it('survives reopening: data written before close reads back after', async () => {
    const { satchel, data } = await openTemp();
    await satchel.writeFile('ws', '/keep.txt', 'still here');
    await satchel.close();
    const again = await openSatchel({ data });
    try {
      const { body } = await again.readFile('ws', '/keep.txt');
      expect((await readAll(body)).toString()).toBe('still here');
      expect((await again.fsck()).ok).toBe(true);
    } finally {
      await again.close();
    }
  });
});
