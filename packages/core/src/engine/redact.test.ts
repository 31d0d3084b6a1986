/** Redaction: content gone from every read and, after GC, from the blob directory; metadata kept. */
import { createHash, randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalTree } from '@satchel/client/sync/local-tree.js';
import { syncOnce } from '@satchel/client/sync/sync.js';
import { describe, expect, it } from 'vitest';
import { catFile, openTemp, readAll, tempDir } from '../test-support/temp.js';

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Over the 64 KiB inline threshold, so the content is a file in the blob directory. */
function large(seed: string): Buffer {
  return Buffer.concat([Buffer.from(`${seed}\n`), randomBytes(100_000)]);
}

async function stored(data: string, hash: string): Promise<boolean> {
  return access(join(data, 'blobs', hash.slice(0, 2), hash)).then(
    () => true,
    () => false,
  );
}

const REDACTED = { code: 'REDACTED' };

describe('redaction', () => {
  it('removes one version for good: every read of it is REDACTED, the others read', async () => {
    const { satchel, data } = await openTemp();
    const secret = large('API_KEY=sk-live-123');
    const leaked = await satchel.writeFile('ws', '/config.env', secret, { session: 'agent-1' });
    const fixed = await satchel.writeFile('ws', '/config.env', 'API_KEY=<from the vault>\n');
    const result = await satchel.redact('ws', '/config.env', { version: leaked.seq });
    expect(result).toEqual({ path: '/config.env', seqs: [leaked.seq] });

    await expect(
      satchel.readFile('ws', '/config.env', { version: leaked.seq }),
    ).rejects.toMatchObject({ ...REDACTED, data: { path: '/config.env', seq: leaked.seq } });
    await expect(
      satchel.readFile('ws', '/config.env', { at: leaked.seq, range: { start: 0, end: 10 } }),
    ).rejects.toMatchObject(REDACTED);
    await expect(
      satchel.readText('ws', '/config.env', { version: leaked.seq, head: 1 }),
    ).rejects.toMatchObject(REDACTED);
    await expect(
      satchel.diff('ws', '/config.env', { from: leaked.seq, to: fixed.seq }),
    ).rejects.toMatchObject(REDACTED);
    await expect(satchel.restore('ws', '/config.env', leaked.seq)).rejects.toMatchObject(REDACTED);
    expect((await catFile(satchel, '/config.env')).toString()).toBe('API_KEY=<from the vault>\n');

    // History keeps who wrote what when; only the content reference is gone.
    const versions = await satchel.listVersions('ws', '/config.env');
    expect(versions.items.map((v) => [v.seq, v.hash === null, v.session])).toEqual([
      [fixed.seq, false, null],
      [leaked.seq, true, 'agent-1'],
    ]);
    const audit = await satchel.listAudit({ workspace: 'ws', limit: 1000 });
    expect(audit.items.find((e) => e.action === 'redact')).toMatchObject({
      path: '/config.env',
      outcome: 'ok',
    });

    // Gone from the blob directory at the second collection with no grace.
    expect(await stored(data, sha(secret))).toBe(true);
    await satchel.collectGarbage({ graceSeconds: 0 });
    await satchel.collectGarbage({ graceSeconds: 0 });
    expect(await stored(data, sha(secret))).toBe(false);
  });

  it('removes every version of a path, the head included, from reads, search and grep', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/notes.md', 'the passphrase is tangerine\n');
    const head = await satchel.writeFile('ws', '/notes.md', 'the passphrase is tangerine, v2\n');
    await satchel.writeFile('ws', '/other.md', 'nothing secret here\n');
    await satchel.reindex('ws');
    expect((await satchel.search('ws', 'tangerine')).items.length).toBeGreaterThan(0);

    const result = await satchel.redact('ws', '/notes.md', { all: true });
    expect(result.seqs).toEqual([head.seq, head.seq - 1]);
    await expect(satchel.readFile('ws', '/notes.md')).rejects.toMatchObject({
      ...REDACTED,
      data: { seq: head.seq },
    });
    const info = await satchel.stat('ws', '/notes.md');
    expect(info).toMatchObject({ type: 'file', hash: null, size: head.size });
    expect((await satchel.search('ws', 'tangerine')).items).toEqual([]);
    expect((await satchel.grep('ws', 'tangerine')).hits).toEqual([]);
    // Redacting again removes nothing more, and says so.
    expect(await satchel.redact('ws', '/notes.md', { all: true })).toEqual({
      path: '/notes.md',
      seqs: [],
    });
    // The file can be written again; the new content reads.
    await satchel.writeFile('ws', '/notes.md', 'clean\n');
    expect((await catFile(satchel, '/notes.md')).toString()).toBe('clean\n');
  });

  it('keeps redacted content out of a sync and a batch download, reported as redacted', async () => {
    const { satchel } = await openTemp();
    const files = Array.from({ length: 20 }, (_, i) => ({ path: `/f${i}.txt`, content: `${i}\n` }));
    await satchel.writeFiles('ws', [...files, { path: '/.env', content: 'TOKEN=tangerine\n' }]);
    await satchel.redact('ws', '/.env', { all: true });

    const download = await satchel.downloadFiles('ws', [{ path: '/.env' }, { path: '/f1.txt' }]);
    const items = [];
    for await (const item of download) {
      items.push('error' in item ? item.error.code : (await readAll(item.body)).toString());
    }
    expect(items).toEqual(['REDACTED', '1\n']);

    for (const batchTransfer of [true, false]) {
      const dir = await tempDir('redacted-sync-');
      const report = await syncOnce({
        satchel,
        workspace: 'ws',
        tree: new LocalTree(dir),
        label: 'sbx',
        batchTransfer,
      });
      expect(report.downloaded, `batchTransfer ${batchTransfer}`).toBe(20);
      expect(report.skipped).toEqual([
        expect.objectContaining({ path: '/.env', reason: 'redacted' }),
      ]);
      await expect(access(join(dir, '.env'))).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });

  it('leaves content another file still holds, and refuses what it cannot redact', async () => {
    const { satchel, data } = await openTemp();
    const shared = large('shared bytes');
    const a = await satchel.writeFile('ws', '/a.bin', shared);
    await satchel.writeFile('ws', '/b.bin', shared);
    await satchel.redact('ws', '/a.bin', { version: a.seq });
    await satchel.collectGarbage({ graceSeconds: 0 });
    await satchel.collectGarbage({ graceSeconds: 0 });
    expect(await stored(data, sha(shared))).toBe(true);
    expect(sha(await readAll((await satchel.readFile('ws', '/b.bin')).body))).toBe(sha(shared));

    const gone = await satchel.remove('ws', '/b.bin');
    await expect(satchel.redact('ws', '/b.bin', { version: gone.seq })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(satchel.redact('ws', '/b.bin', { version: 9999 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(satchel.redact('ws', '/never', { all: true })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    for (const both of [{}, { all: true, version: a.seq }]) {
      await expect(satchel.redact('ws', '/a.bin', both)).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        data: { field: 'version' },
      });
    }
  });
});
