/** What an agent tripped on (issue 16): long lines, budgets, trees, arguments and the listing. */
import { describe, expect, it } from 'vitest';
import { call, connect, errorOf, ok, openEngine, textOf } from './test-support/client.js';

interface Slice {
  text: string;
  seq: number;
  nextOffset: number | null;
  nextColumn: number | null;
}

describe('tools/list', () => {
  it('costs at most 5,000 tokens (4 characters a token) for every registered tool', async () => {
    const client = await connect(await openEngine());
    const listing = JSON.stringify(await client.listTools());
    // The budget of issue 16, for all tools together, those added later included.
    expect(Math.ceil(listing.length / 4)).toBeLessThanOrEqual(5000);
  });
});

describe('reading', () => {
  it('reads a line longer than the read limit in parts, each call moving on', async () => {
    const engine = await openEngine();
    const client = await connect(engine, { limits: { maxReadBytes: 1000 } });
    // One 5,000-byte line with multi-byte characters, then a short one.
    const line = `${'{"k":"é€"}'.repeat(400)}\n`;
    await engine.writeFile('ws', '/one-line.json', `${line}tail\n`);
    let text = '';
    let offset: number | null = 1;
    let column: number | null = null;
    for (let calls = 0; offset !== null; calls++) {
      expect(calls).toBeLessThan(20);
      const slice: Slice = await ok<Slice>(client, 'read_text_file', {
        path: '/one-line.json',
        offset,
        ...(column === null ? {} : { column }),
      });
      expect(Buffer.byteLength(slice.text)).toBeLessThanOrEqual(1000);
      expect(slice.text.length).toBeGreaterThan(0);
      text += slice.text;
      offset = slice.nextOffset;
      column = slice.nextColumn;
    }
    expect(text).toBe(`${line}tail\n`);
  });

  it('says where the file ends when offset is past it, and carries the seq of a whole read', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    const { seq } = await engine.writeFile('ws', '/a.md', 'one\ntwo\n');
    expect(textOf(await call(client, 'read_text_file', { path: '/a.md' }))).toContain(
      `seq ${seq} (pass ifMatch ${seq} to write it)`,
    );
    const past = await call(client, 'read_text_file', { path: '/a.md', offset: 999999 });
    expect(textOf(past)).toContain('offset 999999 is past the end: the file has 2 lines');
  });

  it('read_multiple_files reads what fits and reports a missing path as NOT_FOUND', async () => {
    const engine = await openEngine();
    const client = await connect(engine, { limits: { maxReadBytes: 1000 } });
    await engine.writeFile('ws', '/huge.json', 'x'.repeat(5000));
    await engine.writeFile('ws', '/small-1.md', 'one\n');
    await engine.writeFile('ws', '/small-2.md', 'two\n');
    const { files } = await ok<{ files: Array<Record<string, unknown>> }>(
      client,
      'read_multiple_files',
      { paths: ['/huge.json', '/small-1.md', '/missing.md', '/small-2.md'] },
    );
    expect(files.map((f) => f.path)).toEqual([
      '/huge.json',
      '/small-1.md',
      '/missing.md',
      '/small-2.md',
    ]);
    expect(files[1]).toMatchObject({ text: 'one\n', truncated: false });
    expect(files[3]).toMatchObject({ text: 'two\n', truncated: false });
    expect(files[2]?.error).toMatchObject({ code: 'NOT_FOUND' });
    // The big file gets the rest of the budget, with where to continue.
    expect(String(files[0]?.text).length).toBe(1000 - 8);
    expect(files[0]).toMatchObject({ truncated: true, nextOffset: 1, nextColumn: 992 });
  });

  it('read_media_file sends text to read_text_file, and links a file too large to inline', async () => {
    const engine = await openEngine();
    const client = await connect(engine, { limits: { maxMediaBytes: 100 } });
    await engine.writeFile('ws', '/notes.md', '# notes\n');
    const text = await call(client, 'read_media_file', { path: '/notes.md' });
    expect(errorOf(text)).toMatchObject({ code: 'INVALID_INPUT' });
    expect(textOf(text)).toContain('read it with read_text_file');

    await engine.writeFile('ws', '/photo.png', Buffer.alloc(1000, 7));
    const big = await call(client, 'read_media_file', { path: '/photo.png' });
    expect(big.isError).toBeFalsy();
    expect(big.content[0]).toMatchObject({
      type: 'resource_link',
      uri: 'satchel://ws/photo.png',
      size: 1000,
    });
    expect(textOf(big)).toContain('create_download_url');
    expect(JSON.stringify(big).length).toBeLessThan(1000);
  });
});

describe('directory_tree', () => {
  it('marks folders cut by the bounds, and lists 1,000 entries in compact lines', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    await engine.writeFiles(
      'ws',
      Array.from({ length: 1200 }, (_, i) => ({
        path: `/data/part-${i % 30}/file-${i}.csv`,
        content: 'x',
      })),
    );
    const result = await call(client, 'directory_tree', {});
    const out = result.structuredContent as { entries: number; truncated: boolean };
    expect(out).toMatchObject({ entries: 1000, truncated: true });
    const text = textOf(result);
    expect(text).toContain('data/part-0/file-0.csv 1\n');
    expect(text).not.toMatch(/^\s/m);
    // Some folder is cut, and says how much of it is missing.
    expect(text).toMatch(/^data\/part-\d+\/ … \d+ more$/m);
    expect(text.length).toBeLessThan(40_000);
  });
});

describe('arguments', () => {
  it('refuses an unknown argument with INVALID_INPUT naming it, writing nothing', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    await engine.writeFile('ws', '/a.md', 'keep');
    const refused = await call(client, 'write_file', {
      path: '/a.md',
      content: 'overwritten',
      overwrite: false,
    });
    expect(errorOf(refused)).toMatchObject({
      code: 'INVALID_INPUT',
      data: { field: 'overwrite', reason: 'unknown_argument' },
    });
    expect(textOf(refused)).toContain('write_file has no argument "overwrite"');
    expect((await engine.readText('ws', '/a.md')).text).toBe('keep');
  });

  it('writes create-only with ifNoneMatch "*"', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    await ok(client, 'write_file', { path: '/new.md', content: 'first', ifNoneMatch: '*' });
    const again = await call(client, 'write_file', {
      path: '/new.md',
      content: 'second',
      ifNoneMatch: '*',
    });
    expect(errorOf(again)).toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect((await engine.readText('ws', '/new.md')).text).toBe('first');
  });

  it('refuses a trailing slash on a file, an unclosed "[" and shortens a huge path', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    const slash = await call(client, 'write_file', { path: '/dir/', content: 'x' });
    expect(errorOf(slash)).toMatchObject({ code: 'INVALID_PATH' });
    expect((await engine.list('ws')).total).toBe(0);
    const glob = await call(client, 'search_files', { pattern: '[' });
    expect(errorOf(glob)).toMatchObject({ code: 'INVALID_INPUT', data: { field: 'glob' } });
    const long = await call(client, 'read_text_file', { path: `/${'a/'.repeat(2500)}x` });
    expect(errorOf(long)).toMatchObject({ code: 'INVALID_PATH' });
    expect(textOf(long).length).toBeLessThan(800);
  });

  it('names seq and hash alike in the text and the structured result', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    await engine.writeFile('ws', '/a.md', 'a');
    const info = await call(client, 'get_file_info', { path: '/a.md' });
    const structured = info.structuredContent as { seq: number; hash: string };
    expect(textOf(info)).toContain(`seq: ${structured.seq}`);
    expect(textOf(info)).toContain(`hash: ${structured.hash}`);
  });
});
