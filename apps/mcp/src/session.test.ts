/** A full agent session through a real SDK Client over InMemoryTransport, on a real engine. */
import { describe, expect, it } from 'vitest';
import { call, connect, errorOf, ok, openEngine, textOf } from './test-support/client.js';

describe('an agent session', () => {
  it('creates, writes, reads ranges, edits, appends and lists', async () => {
    const engine = await openEngine();
    const client = await connect(engine);

    const dir = await ok(client, 'create_directory', { path: '/notes' });
    expect(dir).toMatchObject({ path: '/notes', type: 'directory' });

    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n');
    const written = await ok(client, 'write_file', {
      path: '/notes/plan.md',
      content: `${lines}\n`,
    });
    expect(written).toMatchObject({ path: '/notes/plan.md', type: 'file', size: 71 });

    const head = await call(client, 'read_text_file', { path: '/notes/plan.md', head: 2 });
    expect(head.content[0]).toEqual({ type: 'text', text: 'line 1\nline 2\n' });
    expect(head.structuredContent).toMatchObject({
      lineStart: 1,
      lineEnd: 2,
      truncated: true,
      nextOffset: 3,
    });
    expect(textOf(head)).toContain('continue with offset=3');

    const middle = await ok(client, 'read_text_file', {
      path: '/notes/plan.md',
      offset: 4,
      limit: 2,
    });
    expect(middle).toMatchObject({ text: 'line 4\nline 5\n', lineStart: 4, lineEnd: 5 });
    const tail = await ok(client, 'read_text_file', { path: '/notes/plan.md', tail: 1 });
    expect(tail).toMatchObject({
      text: 'line 10\n',
      lineStart: 10,
      totalLines: 10,
      truncated: false,
    });

    const edit = await ok(client, 'edit_file', {
      path: '/notes/plan.md',
      edits: [{ oldText: 'line 3\n', newText: 'line three\n' }],
    });
    expect(edit).toMatchObject({ replacements: 1, dryRun: false });
    expect(edit.diff).toContain('+line three');

    await ok(client, 'append_file', { path: '/notes/log.txt', content: 'first\n' });
    const appended = await ok(client, 'append_file', {
      path: '/notes/log.txt',
      content: 'second\n',
    });
    expect(appended).toMatchObject({ size: 13 });

    const listing = await ok(client, 'list_directory', { path: '/notes' });
    expect(listing).toMatchObject({ total: 2, nextCursor: null });
    expect((listing.entries as Array<{ path: string }>).map((e) => e.path)).toEqual([
      '/notes/log.txt',
      '/notes/plan.md',
    ]);
    const found = await ok(client, 'search_files', { pattern: '**/*.md' });
    expect(found).toMatchObject({ total: 1 });

    const multi = await ok(client, 'read_multiple_files', {
      paths: ['/notes/log.txt', '/missing.txt'],
    });
    expect(multi.files).toMatchObject([
      { path: '/notes/log.txt', text: 'first\nsecond\n', error: null },
      { path: '/missing.txt', text: null, error: { code: 'NOT_FOUND' } },
    ]);
  });

  it('keeps versions, diffs and restores them', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    const v1 = await ok<{ seq: number }>(client, 'write_file', {
      path: '/a.txt',
      content: 'one\n',
    });
    const v2 = await ok<{ seq: number }>(client, 'write_file', {
      path: '/a.txt',
      content: 'two\n',
    });
    const versions = await ok<{ versions: Array<{ seq: number }> }>(client, 'list_versions', {
      path: '/a.txt',
    });
    expect(versions.versions.map((v) => v.seq)).toEqual([v2.seq, v1.seq]);
    const diff = await ok(client, 'diff_versions', { path: '/a.txt' });
    expect(diff.diff).toContain('-one');
    expect(diff.diff).toContain('+two');
    const old = await ok(client, 'read_text_file', { path: '/a.txt', version: v1.seq });
    expect(old.text).toBe('one\n');
    const restored = await ok<{ seq: number }>(client, 'restore_version', {
      path: '/a.txt',
      version: v1.seq,
    });
    expect(restored.seq).toBeGreaterThan(v2.seq);
    expect((await ok(client, 'read_text_file', { path: '/a.txt' })).text).toBe('one\n');
  });

  it('locks: a write needs the token while locked, others are refused with the holder', async () => {
    const engine = await openEngine();
    await engine.createPrincipal({ name: 'other', kind: 'agent' });
    await engine.setMember('ws', 'other', 'editor');
    const otherKey = (await engine.createKey({ principal: 'other' })).key;
    const client = await connect(engine);
    const other = await connect(engine.as(await engine.authenticate(otherKey)));

    const lock = await ok<{ lockId: string; token: number; expiresAt: string }>(
      client,
      'lock_file',
      {
        path: '/shared.md',
        ttlSeconds: 60,
      },
    );
    expect(lock.token).toBeGreaterThan(0);
    await ok(client, 'write_file', { path: '/shared.md', content: 'mine', lockToken: lock.token });

    const refused = await call(other, 'write_file', { path: '/shared.md', content: 'theirs' });
    expect(refused.isError).toBe(true);
    expect(errorOf(refused)).toMatchObject({ code: 'LOCKED' });
    expect(textOf(refused)).toContain('locked by admin');
    expect(textOf(refused)).toContain(lock.expiresAt);

    const locks = await ok<{ locks: unknown[] }>(other, 'list_locks', { path: '/shared.md' });
    expect(locks.locks).toHaveLength(1);
    await ok(client, 'renew_lock', { lockId: lock.lockId, ttlSeconds: 120 });
    await ok(client, 'unlock_file', { lockId: lock.lockId });

    const stale = await call(client, 'write_file', {
      path: '/shared.md',
      content: 'late',
      lockToken: lock.token,
    });
    expect(errorOf(stale)).toMatchObject({ code: 'LOCKED' });
    expect(textOf(stale)).toContain('take a new lock');
    await ok(other, 'write_file', { path: '/shared.md', content: 'theirs' });
  });

  it('a conditional write that lost the race says which version to retry with', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    const first = await ok<{ seq: number }>(client, 'write_file', { path: '/c.md', content: 'a' });
    const second = await engine.writeFile('ws', '/c.md', 'someone else');
    const conflict = await call(client, 'write_file', {
      path: '/c.md',
      content: 'b',
      ifMatch: first.seq,
    });
    expect(conflict.isError).toBe(true);
    expect(errorOf(conflict)).toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect(textOf(conflict)).toContain(
      `the file changed since version ${first.seq} (it is now version ${second.seq}): re-read it with read_text_file and retry with ifMatch ${second.seq}`,
    );
    expect((await engine.readText('ws', '/c.md')).text).toBe('someone else');
    await ok(client, 'write_file', { path: '/c.md', content: 'b', ifMatch: second.seq });
  });

  it('an edit that matches nothing or several places shows the nearest candidates', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    await engine.writeFile(
      'ws',
      '/code.ts',
      'const alpha = 1;\nconst beta = 2;\nconst beta = 3;\n',
    );
    const none = await call(client, 'edit_file', {
      path: '/code.ts',
      edits: [{ oldText: 'const alpah = 1;', newText: 'x' }],
    });
    expect(errorOf(none)).toMatchObject({ code: 'INVALID_INPUT' });
    expect(textOf(none)).toContain('line 1: const alpha = 1;');
    const several = await call(client, 'edit_file', {
      path: '/code.ts',
      edits: [{ oldText: 'const beta', newText: 'let beta' }],
    });
    expect(textOf(several)).toContain('matches 2 places');
    expect(textOf(several)).toContain('line 3: const beta = 3;');
    expect((await engine.readText('ws', '/code.ts')).info.seq).toBeGreaterThan(0);
  });

  it('binary: write base64, read back as an image block or an embedded resource', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    await ok(client, 'write_file', {
      path: '/img/dot.png',
      content: png.toString('base64'),
      encoding: 'base64',
    });
    const image = await call(client, 'read_media_file', { path: '/img/dot.png' });
    expect(image.content).toEqual([
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
    ]);
    await engine.writeFile('ws', '/blob.bin', new Uint8Array([0, 1, 2, 3]));
    const other = await call(client, 'read_media_file', { path: '/blob.bin' });
    expect(other.content[0]).toMatchObject({
      type: 'resource',
      resource: { uri: 'satchel://ws/blob.bin', blob: 'AAECAw==' },
    });
    const bad = await call(client, 'write_file', {
      path: '/x.bin',
      content: 'not base64!',
      encoding: 'base64',
    });
    expect(errorOf(bad)).toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('finding content', () => {
  it('grep returns lines with numbers; search and ask return cited passages', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    await ok(client, 'write_file', {
      path: '/docs/pricing.md',
      content: '# Pricing\n\nThe plan costs 12 euros per month.\nDiscounts for students.\n',
    });
    await ok(client, 'write_file', { path: '/docs/other.md', content: 'nothing here\n' });
    const grep = await call(client, 'grep', { pattern: 'EUROS', caseSensitive: false });
    expect(grep.structuredContent).toMatchObject({
      hits: [{ path: '/docs/pricing.md', line: 3 }],
      truncated: false,
    });
    expect(textOf(grep)).toContain('/docs/pricing.md:3: The plan costs 12 euros per month.');

    const search = await call(client, 'search', { query: 'discounts students' });
    expect(search.isError).toBeFalsy();
    expect(search.structuredContent).toMatchObject({
      items: [{ citation: { path: '/docs/pricing.md', lineStart: expect.any(Number) } }],
    });
    const ask = await ok(client, 'ask', { question: 'Are there discounts for students?' });
    expect(ask.answer).toBeNull();
    expect((ask.passages as unknown[]).length).toBeGreaterThan(0);
  });
});
