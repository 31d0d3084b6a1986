/**
 * Batch transfer in the engine: a stream of files written each on its own (per-file answers,
 * path checks per entry, nothing written for a file cut short), the hash negotiation scoped to
 * workspaces the caller may read, and a stream of files read back byte-identical.
 */
import { createHash } from 'node:crypto';
import type { UploadEntry } from '@satchel/client/operations/satchel.js';
import { describe, expect, it } from 'vitest';
import { catFile, openTemp } from '../test-support/temp.js';

const sha = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

async function* entries(list: readonly UploadEntry[]): AsyncGenerator<UploadEntry> {
  yield* list;
}

async function* chunks(...pieces: string[]): AsyncGenerator<Uint8Array> {
  for (const piece of pieces) yield Buffer.from(piece);
}

async function* broken(data: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(data);
  throw new Error('connection reset');
}

describe('uploadFiles', () => {
  it('writes every file of the stream, large and small, and answers per file in order', async () => {
    const { satchel } = await openTemp();
    const large = 'L'.repeat(300_000);
    const files: UploadEntry[] = [];
    for (let i = 0; i < 300; i++) {
      files.push({ path: `/d${i % 7}/f${i}.txt`, content: Buffer.from(`file ${i}\n`) });
    }
    files.push({
      path: '/big.bin',
      content: chunks(large.slice(0, 1000), large.slice(1000)),
      size: large.length,
      hash: sha(large),
    });
    const result = await satchel.uploadFiles('ws', entries(files));
    expect(result.items).toHaveLength(301);
    expect(result.items.every((item) => item.ok)).toBe(true);
    expect(result.items.map((item) => item.path)).toEqual(files.map((f) => f.path));
    expect((await catFile(satchel, '/d3/f3.txt')).toString()).toBe('file 3\n');
    expect((await catFile(satchel, '/big.bin')).toString()).toBe(large);
  });

  it('refuses a file on its own: bad path, duplicate, failed condition, wrong size or hash', async () => {
    const { satchel } = await openTemp();
    const head = await satchel.writeFile('ws', '/kept.txt', 'kept');
    await satchel.writeFile('ws', '/exists.txt', 'exists');
    const result = await satchel.uploadFiles(
      'ws',
      entries([
        { path: '/ok.txt', content: Buffer.from('ok') },
        { path: '/bad/../../x', content: Buffer.from('x') },
        { path: '/ok.txt', content: Buffer.from('again') },
        { path: '/kept.txt', content: Buffer.from('overwrite'), ifMatch: head.seq + 9 },
        { path: '/exists.txt', content: Buffer.from('nope'), ifNoneMatch: '*' },
        { path: '/short.txt', content: Buffer.from('abc'), size: 10 },
        { path: '/lying.txt', content: Buffer.from('abc'), hash: sha('xyz') },
        { path: '/unknown.txt', hash: sha('never stored') },
      ]),
    );
    expect(result.items.map((item) => (item.ok ? 'ok' : item.error.code))).toEqual([
      'ok',
      'INVALID_PATH',
      'INVALID_INPUT',
      'PRECONDITION_FAILED',
      'PRECONDITION_FAILED',
      'INVALID_INPUT',
      'INVALID_INPUT',
      'NOT_FOUND',
    ]);
    expect((await catFile(satchel, '/kept.txt')).toString()).toBe('kept');
    for (const path of ['/short.txt', '/lying.txt', '/unknown.txt']) {
      await expect(satchel.stat('ws', path)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('a stream that breaks off writes the files sent whole, never the one it was carrying', async () => {
    const { satchel } = await openTemp();
    const big = 'B'.repeat(200_000);
    const stream = async function* (): AsyncGenerator<UploadEntry> {
      yield { path: '/one.txt', content: Buffer.from('one') };
      yield { path: '/two.txt', content: Buffer.from('two') };
      yield { path: '/cut.bin', content: broken(big), size: big.length * 2 };
    };
    await expect(satchel.uploadFiles('ws', stream())).rejects.toThrow('connection reset');
    expect((await catFile(satchel, '/one.txt')).toString()).toBe('one');
    expect((await catFile(satchel, '/two.txt')).toString()).toBe('two');
    await expect(satchel.stat('ws', '/cut.bin')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('checks each path against the key’s path prefixes as it arrives', async () => {
    const { satchel } = await openTemp();
    await satchel.createPrincipal({ name: 'agent', kind: 'agent' });
    await satchel.setMember('ws', 'agent', 'editor');
    const key = await satchel.createKey({ principal: 'agent', pathPrefixes: ['/out'] });
    const agent = satchel.as(await satchel.authenticate(key.key));
    const result = await agent.uploadFiles(
      'ws',
      entries([
        { path: '/out/a.txt', content: Buffer.from('a') },
        { path: '/etc/b.txt', content: Buffer.from('b') },
      ]),
    );
    expect(result.items[0]?.ok).toBe(true);
    expect(result.items[1]).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN', data: { reason: 'path_prefix' } },
    });
    await expect(satchel.stat('ws', '/etc/b.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('haveContent and writing by hash across workspaces', () => {
  it('finds content in any of more readable workspaces than one query names', async () => {
    const { satchel } = await openTemp();
    // 600 workspaces the admin may read besides ws; the content is in the last, by name.
    for (let i = 0; i < 600; i++) await satchel.createWorkspace(`w${String(i).padStart(3, '0')}`);
    await satchel.writeFile('w599', '/far.txt', 'in the last workspace');
    expect((await satchel.haveContent('ws', [sha('in the last workspace')])).have).toHaveLength(1);
    const result = await satchel.uploadFiles(
      'ws',
      entries([{ path: '/near.txt', hash: sha('in the last workspace') }]),
    );
    expect(result.items[0]).toMatchObject({ ok: true, deduplicated: true });
    expect((await catFile(satchel, '/near.txt')).toString()).toBe('in the last workspace');
  });

  it('names content of workspaces the caller may read, and never of the others', async () => {
    const { satchel } = await openTemp();
    for (const name of ['shared', 'private']) await satchel.createWorkspace(name);
    await satchel.createPrincipal({ name: 'agent', kind: 'agent' });
    await satchel.setMember('ws', 'agent', 'editor');
    await satchel.setMember('shared', 'agent', 'viewer');
    const big = 'S'.repeat(100_000);
    await satchel.writeFile('shared', '/data.bin', big);
    await satchel.writeFile('shared', '/only-shared.txt', 'only shared');
    await satchel.writeFile('private', '/secret.txt', 'the secret');
    await satchel.writeFile('ws', '/own.txt', 'own');
    const agent = satchel.as(
      await satchel.authenticate((await satchel.createKey({ principal: 'agent' })).key),
    );
    const asked = [sha(big), sha('the secret'), sha('own'), sha('nowhere')];
    expect((await agent.haveContent('ws', asked)).have.sort()).toEqual(
      [sha(big), sha('own')].sort(),
    );
    const result = await agent.uploadFiles(
      'ws',
      entries([
        { path: '/copy.bin', hash: sha(big) },
        { path: '/stolen.txt', hash: sha('the secret') },
      ]),
    );
    expect(result.items[0]).toMatchObject({ ok: true, deduplicated: true });
    // The same answer as for content nobody has: the private workspace's content stays unknown.
    expect(result.items[1]).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND', data: { reason: 'content_unknown' } },
    });
    expect((await catFile(satchel, '/copy.bin')).toString()).toBe(big);
    // A key narrowed to one workspace reads no other: the shared content is not offered.
    const narrowed = satchel.as(
      await satchel.authenticate(
        (await satchel.createKey({ principal: 'agent', workspaces: ['ws'] })).key,
      ),
    );
    expect((await agent.haveContent('ws', [sha('only shared')])).have).toHaveLength(1);
    expect((await narrowed.haveContent('ws', [sha('only shared'), sha('own')])).have).toEqual([
      sha('own'),
    ]);
    await expect(agent.haveContent('ws', ['not-a-hash'])).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe('downloadFiles', () => {
  it('streams the versions asked for, with an error item for a file it cannot read', async () => {
    const { satchel } = await openTemp();
    const big = Buffer.alloc(300_000, 7);
    const first = await satchel.writeFile('ws', '/a.txt', 'first');
    await satchel.writeFile('ws', '/a.txt', 'second');
    await satchel.writeFile('ws', '/big.bin', big);
    const got: Array<{ path: string; text?: string; code?: string; hash?: string | null }> = [];
    for await (const item of await satchel.downloadFiles('ws', [
      { path: '/a.txt', version: first.seq },
      { path: '/missing.txt' },
      { path: '/big.bin' },
      { path: '/a.txt' },
    ])) {
      if ('error' in item) {
        got.push({ path: item.path, code: item.error.code });
        continue;
      }
      const pieces: Buffer[] = [];
      for await (const piece of item.body) pieces.push(Buffer.from(piece));
      const bytes = Buffer.concat(pieces);
      expect(sha(bytes)).toBe(item.info.hash);
      got.push({ path: item.path, text: bytes.byteLength > 100 ? 'big' : bytes.toString() });
    }
    expect(got).toEqual([
      { path: '/a.txt', text: 'first' },
      { path: '/missing.txt', code: 'NOT_FOUND' },
      { path: '/big.bin', text: 'big' },
      { path: '/a.txt', text: 'second' },
    ]);
    await expect(satchel.downloadFiles('ws', [])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('answers a long list in order, pages of small files and the odd one out alike', async () => {
    const { satchel } = await openTemp();
    const files = Array.from({ length: 450 }, (_, i) => ({
      path: `/d/f${i}.txt`,
      content: `n${i}`,
    }));
    const infos = await satchel.writeFiles('ws', files);
    // Pinned to the version planned, as sync asks: the head's version is the head.
    const asked: { path: string; version?: number }[] = files.map((file, i) => ({
      path: file.path,
      version: infos[i]?.seq ?? 0,
    }));
    asked.splice(199, 0, { path: '/d' }, { path: '/nope.txt' }, { path: '/d/f0.txt' });
    const got: string[] = [];
    for await (const item of await satchel.downloadFiles('ws', asked)) {
      if ('error' in item) {
        got.push(`${item.path}: ${item.error.code}`);
        continue;
      }
      const pieces: Buffer[] = [];
      for await (const piece of item.body) pieces.push(Buffer.from(piece));
      got.push(`${item.path}: ${Buffer.concat(pieces).toString()}`);
    }
    const expected = files.map((file) => `${file.path}: ${file.content}`);
    expected.splice(199, 0, '/d: INVALID_INPUT', '/nope.txt: NOT_FOUND', '/d/f0.txt: n0');
    expect(got).toEqual(expected);
  });
});
