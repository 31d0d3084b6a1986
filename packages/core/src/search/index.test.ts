/** The search index follows every mutation, pins citations to versions, and ranks by BM25. */
import { describe, expect, it } from 'vitest';
import type { SatchelEngine } from '../engine/satchel-engine.js';
import { openTemp } from '../test-support/temp.js';

async function paths(satchel: SatchelEngine, query: string): Promise<string[]> {
  const result = await satchel.search('ws', query, { limit: 50 });
  return [...new Set(result.items.map((hit) => hit.citation.path))].sort();
}

describe('the search index', () => {
  it('indexes the files of a bulk upload once it ends, every one of them', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/before.md', 'written before: narwhal\n');
    async function* files() {
      for (let i = 0; i < 600; i++) {
        const word = i % 100 === 42 ? 'pangolin' : 'plain';
        yield { path: `/bulk/d${i % 9}/f${i}.md`, content: Buffer.from(`file ${i}: ${word}\n`) };
      }
    }
    const result = await satchel.uploadFiles('ws', files());
    expect(result.items.every((item) => item.ok)).toBe(true);
    // The background step held during the upload runs after it, without a search asking.
    let status = await satchel.searchStatus('ws');
    for (let i = 0; i < 600 && status.lag > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      status = await satchel.searchStatus('ws');
    }
    expect(status).toMatchObject({ lag: 0, files: 601 });
    expect(await paths(satchel, 'pangolin')).toEqual(
      [42, 142, 242, 342, 442, 542].map((i) => `/bulk/d${i % 9}/f${i}.md`).sort(),
    );
    expect(await paths(satchel, 'narwhal')).toEqual(['/before.md']);
  });

  it('follows writes, appends, edits, moves, copies, deletes and restores', async () => {
    const { satchel } = await openTemp();
    const first = await satchel.writeFile('ws', '/notes/run.md', 'the run concluded: zebra\n');
    expect(await paths(satchel, 'zebra')).toEqual(['/notes/run.md']);

    await satchel.appendFile('ws', '/notes/run.md', 'later we saw a giraffe\n');
    expect(await paths(satchel, 'giraffe')).toEqual(['/notes/run.md']);

    await satchel.editFile('ws', '/notes/run.md', [{ oldText: 'zebra', newText: 'okapi' }]);
    expect(await paths(satchel, 'zebra')).toEqual([]);
    expect(await paths(satchel, 'okapi')).toEqual(['/notes/run.md']);

    await satchel.move('ws', '/notes/run.md', '/archive/run.md');
    expect(await paths(satchel, 'okapi')).toEqual(['/archive/run.md']);

    await satchel.copy('ws', '/archive/run.md', '/copy.md');
    expect(await paths(satchel, 'okapi')).toEqual(['/archive/run.md', '/copy.md']);

    await satchel.remove('ws', '/copy.md');
    await satchel.remove('ws', '/archive', { recursive: true });
    expect(await paths(satchel, 'okapi')).toEqual([]);

    await satchel.restore('ws', '/notes/run.md', first.seq);
    expect(await paths(satchel, 'zebra')).toEqual(['/notes/run.md']);

    await satchel.writeFiles('ws', [
      { path: '/a.txt', content: 'batch walrus' },
      { path: '/b.txt', content: 'batch walrus too' },
    ]);
    expect(await paths(satchel, 'walrus')).toEqual(['/a.txt', '/b.txt']);
    const status = await satchel.searchStatus('ws');
    expect(status).toMatchObject({ enabled: true, lag: 0, files: 3, vectors: null });
    expect(status.indexedSeq).toBe(status.headSeq);
  });

  it('forgets a deleted workspace, and a new one of the same name starts empty', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.md', 'narwhal sightings\n');
    expect(await paths(satchel, 'narwhal')).toEqual(['/a.md']);
    await satchel.deleteWorkspace('ws');
    await satchel.createWorkspace('ws');
    expect(await paths(satchel, 'narwhal')).toEqual([]);
    expect(await satchel.searchStatus('ws')).toMatchObject({ passages: 0, files: 0 });
  });

  it('indexes text detected by content, not by name, and skips binary files', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/data.bin', 'plain text about a capybara\n');
    await satchel.writeFile('ws', '/notes.txt', new Uint8Array([99, 97, 112, 0, 1, 2, 255]));
    await satchel.writeFile('ws', '/latin1.txt', new Uint8Array([0x63, 0x61, 0x70, 0xe9, 0x0a]));
    expect(await paths(satchel, 'capybara')).toEqual(['/data.bin']);
    expect(await satchel.searchStatus('ws')).toMatchObject({ files: 1 });
  });

  it('pins citations to a version: the cited lines read back after the file changed', async () => {
    const { satchel } = await openTemp();
    const doc = [
      '# Deploy notes',
      '',
      'Intro paragraph.',
      '',
      '## Database',
      '',
      'The migration of the billing database finished at noon.',
      'Rollback was not needed.',
      '',
    ].join('\n');
    await satchel.writeFile('ws', '/deploy.md', doc);
    const [hit] = (await satchel.search('ws', 'billing migration')).items;
    if (!hit) throw new Error('expected a hit');
    expect(hit.snippet).toContain('«billing»');
    const { path, seq, lineStart, lineEnd } = hit.citation;
    expect(lineStart).toBe(5);

    await satchel.editFile('ws', '/deploy.md', [
      { oldText: 'Intro paragraph.', newText: 'A much longer intro.\n\nWith more lines.' },
      { oldText: 'billing', newText: 'invoicing' },
    ]);
    const cited = await satchel.readText('ws', path, {
      version: seq,
      offset: lineStart,
      limit: lineEnd - lineStart + 1,
    });
    expect(cited.text).toBe(hit.text);
    expect(cited.text).toContain('billing database');
    // The index moved on to the new version.
    const [now] = (await satchel.search('ws', 'invoicing')).items;
    expect(now?.citation.seq).toBeGreaterThan(seq);
    expect((await satchel.search('ws', 'billing')).items).toEqual([]);
  });

  it('ranks a passage about the topic above passages that mention it in passing', async () => {
    const { satchel } = await openTemp();
    const filler = (n: number) =>
      Array.from({ length: n }, (_, i) => `Line ${i} talks about lunch, weather and trains.`);
    await satchel.writeFile(
      'ws',
      '/misc/diary.md',
      [...filler(30), 'Someone mentioned kubernetes once.', ...filler(30)].join('\n'),
    );
    await satchel.writeFile(
      'ws',
      '/misc/log.txt',
      [...filler(20), 'kubernetes was down for a minute.', ...filler(20)].join('\n'),
    );
    await satchel.writeFile(
      'ws',
      '/guides/cluster.md',
      '# Kubernetes\n\nOur kubernetes cluster runs three kubernetes nodes; kubernetes upgrades ' +
        'happen monthly.\n',
    );
    const result = await satchel.search('ws', 'kubernetes');
    expect(result.mode).toBe('bm25');
    const [top, ...rest] = result.items;
    expect(top?.citation.path).toBe('/guides/cluster.md');
    expect(rest.map((h) => h.citation.path).sort()).toEqual(['/misc/diary.md', '/misc/log.txt']);
    for (const other of rest) expect(top?.score).toBeGreaterThan(other.score);
  });

  it('scopes by path, bounds the limit, and treats FTS syntax as plain words', async () => {
    const { satchel } = await openTemp();
    for (let i = 0; i < 5; i++) await satchel.writeFile('ws', `/d${i % 2}/f${i}.md`, 'lemur\n');
    expect((await satchel.search('ws', 'lemur', { path: '/d0' })).items).toHaveLength(3);
    expect((await satchel.search('ws', 'lemur', { limit: 2 })).items).toHaveLength(2);
    const odd = await satchel.search('ws', 'lemur" OR NEAR(x y) AND -* :col');
    expect(odd.items.length).toBeGreaterThan(0);
    await expect(satchel.search('ws', '   ')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(satchel.search('ws', '"*"')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(satchel.search('ws', 'x', { limit: 0 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(satchel.search('nope', 'lemur')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(satchel.search('ws', 'lemur', { path: '../x' })).rejects.toMatchObject({
      code: 'INVALID_PATH',
    });
  });

  it('switches with the workspace setting: off drops passages and refuses search, on rebuilds', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.md', 'tapir facts\n');
    expect(await paths(satchel, 'tapir')).toEqual(['/a.md']);
    expect((await satchel.getWorkspace('ws')).settings).toEqual({
      indexing: 'on',
      quotaBytes: null,
      quotaHistoryBytes: null,
      quotaFiles: null,
    });

    const off = await satchel.updateWorkspace('ws', { indexing: 'off' });
    expect(off.settings).toEqual({
      indexing: 'off',
      quotaBytes: null,
      quotaHistoryBytes: null,
      quotaFiles: null,
    });
    expect(await satchel.searchStatus('ws')).toMatchObject({ enabled: false, passages: 0 });
    await expect(satchel.search('ws', 'tapir')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { reason: 'indexing_off' },
    });
    await satchel.writeFile('ws', '/b.md', 'more tapir facts\n');
    expect((await satchel.grep('ws', 'tapir')).hits).toHaveLength(2);

    await satchel.updateWorkspace('ws', { indexing: 'on' });
    expect(await paths(satchel, 'tapir')).toEqual(['/a.md', '/b.md']);
    await expect(
      satchel.updateWorkspace('ws', { indexing: 'maybe' as 'on' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('rebuilds on reindex, and leaves settings and reindex to owners', async () => {
    const { satchel } = await openTemp();
    for (let i = 0; i < 250; i++) await satchel.writeFile('ws', `/f${i}.txt`, `quokka ${i}\n`);
    const status = await satchel.reindex('ws');
    expect(status).toMatchObject({ files: 250, lag: 0, rebuilding: false });
    await satchel.createPrincipal({ name: 'ed' });
    await satchel.setMember('ws', 'ed', 'editor');
    const ed = satchel.as(
      await satchel.authenticate((await satchel.createKey({ principal: 'ed' })).key),
    );
    await expect(ed.reindex('ws')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(ed.updateWorkspace('ws', { indexing: 'off' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect((await ed.search('ws', 'quokka', { limit: 3 })).items).toHaveLength(3);
  });
});
