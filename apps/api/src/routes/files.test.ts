/** Files over HTTP: content, listing, sessions and lock tokens, roles, and paths of any kind. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, problemOf } from '../test-support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const file = (path: string) => `/v1/workspaces/demo/files${path}`;

describe('file content', () => {
  it('writes, reads, stats, appends and deletes a file', async () => {
    const put = await h.request('PUT', file('/notes/a.md'), { body: '# Title\n' });
    expect(put.status).toBe(200);
    expect(put.headers.get('ETag')).toBe('"1"');
    expect(await put.json()).toMatchObject({ path: '/notes/a.md', seq: 1, size: 8, type: 'file' });

    const get = await h.request('GET', file('/notes/a.md'));
    expect(get.status).toBe(200);
    expect(get.headers.get('Content-Type')).toBe('text/markdown');
    expect(get.headers.get('Content-Length')).toBe('8');
    expect(get.headers.get('ETag')).toBe('"1"');
    expect(get.headers.get('Accept-Ranges')).toBe('bytes');
    expect(await get.text()).toBe('# Title\n');

    const head = await h.request('HEAD', file('/notes/a.md'));
    expect(head.status).toBe(200);
    expect(Object.fromEntries(head.headers)).toMatchObject({
      etag: '"1"',
      'content-length': '8',
      'content-type': 'text/markdown',
      'satchel-version': '1',
      'satchel-type': 'file',
    });
    expect(new Date(head.headers.get('Last-Modified') ?? '').getTime()).not.toBeNaN();
    expect(await head.text()).toBe('');

    const appended = await h.request('POST', file('/notes/a.md?append'), { body: 'more\n' });
    expect(appended.status).toBe(200);
    expect(appended.headers.get('ETag')).toBe('"2"');
    expect(await (await h.request('GET', file('/notes/a.md'))).text()).toBe('# Title\nmore\n');

    const removed = await h.request('DELETE', file('/notes/a.md'));
    expect(await removed.json()).toEqual({ seq: 3, removed: 1 });
    expect((await h.request('GET', file('/notes/a.md'))).status).toBe(404);
  });

  it('reads old versions with ?version=N, cacheable forever', async () => {
    await h.request('PUT', file('/v.txt'), { body: 'one' });
    await h.request('PUT', file('/v.txt'), { body: 'two' });
    const old = await h.request('GET', file('/v.txt?version=1'));
    expect(await old.text()).toBe('one');
    expect(old.headers.get('ETag')).toBe('"1"');
    expect(old.headers.get('Cache-Control')).toContain('immutable');
    expect((await h.request('GET', file('/v.txt?version=99'))).status).toBe(404);
    expect((await h.request('GET', file('/v.txt?version=x'))).status).toBe(400);
  });

  it('stores binary content byte for byte, and empty bodies as empty files', async () => {
    const bytes = new Uint8Array(256).map((_, i) => i);
    await h.request('PUT', file('/b.bin'), { body: bytes });
    const res = await h.request('GET', file('/b.bin'));
    expect(res.headers.get('Content-Type')).toBe('application/octet-stream');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    const empty = await h.request('PUT', file('/empty.txt'));
    expect(await empty.json()).toMatchObject({ size: 0 });
    expect(await (await h.request('GET', file('/empty.txt'))).text()).toBe('');
  });

  it('needs ?append to POST to a file, and ?recursive to delete a full directory', async () => {
    const post = await h.request('POST', file('/x.txt'), { body: 'x' });
    expect(await problemOf(post)).toMatchObject({ status: 400, field: 'append' });
    await h.request('PUT', file('/dir/x.txt'), { body: 'x' });
    expect((await h.request('DELETE', file('/dir'))).status).toBe(409);
    expect(await (await h.request('DELETE', file('/dir?recursive=true'))).json()).toMatchObject({
      removed: 2,
    });
  });

  it('records the Satchel-Session label on versions', async () => {
    await h.request('PUT', file('/s.txt'), { body: 'x', headers: { 'Satchel-Session': 'run-7' } });
    const versions = await (await h.request('GET', '/v1/workspaces/demo/versions/s.txt')).json();
    expect(versions).toMatchObject({ items: [{ session: 'run-7' }] });
    const long = await h.request('PUT', file('/s.txt'), {
      body: 'x',
      headers: { 'Satchel-Session': 'x'.repeat(201) },
    });
    expect(await problemOf(long)).toMatchObject({ status: 400, field: 'Satchel-Session' });
    // Percent-decoded once: any label travels; a malformed escape is refused.
    await h.request('PUT', file('/s.txt'), {
      body: 'y',
      headers: { 'Satchel-Session': '%20r%C3%BCn%2025%25%20' },
    });
    const decoded = await (await h.request('GET', '/v1/workspaces/demo/versions/s.txt')).json();
    expect((decoded as { items: unknown[] }).items[0]).toMatchObject({ session: ' rün 25% ' });
    const malformed = await h.request('PUT', file('/s.txt'), {
      body: 'x',
      headers: { 'Satchel-Session': '100%' },
    });
    expect(await problemOf(malformed)).toMatchObject({ status: 400, field: 'Satchel-Session' });
  });

  it('sends the whole FileInfo as headers on GET and HEAD', async () => {
    const put = await h.request('PUT', file('/d/caf%C3%A9%20%25.txt'), {
      body: 'x',
      key: h.keys.editor,
      headers: { 'Satchel-Session': 'r%C3%BCn' },
    });
    const info = (await put.json()) as Record<string, unknown>;
    expect(info).toMatchObject({ path: '/d/café %.txt', author: 'ed', session: 'rün' });
    for (const method of ['GET', 'HEAD']) {
      const res = await h.request(method, file('/d/caf%C3%A9%20%25.txt'));
      expect(res.headers.get('Satchel-Path'), method).toBe('/d/caf%C3%A9%20%25.txt');
      expect(res.headers.get('Satchel-Author'), method).toBe('ed');
      expect(res.headers.get('Satchel-Session'), method).toBe('r%C3%BCn');
      expect(res.headers.get('Satchel-Modified'), method).toBe(info.modifiedAt);
      expect(res.headers.get('Satchel-Modified'), method).toMatch(
        /^\d{4}-\d\d-\d\dT[\d:]{8}\.\d{3}Z$/,
      );
      await res.body?.cancel();
    }
    await h.request('POST', '/v1/workspaces/demo/mkdir', { body: { path: '/e' } });
    const dir = await h.request('HEAD', file('/e'));
    expect(dir.headers.get('Satchel-Path')).toBe('/e');
    expect(dir.headers.get('Satchel-Author')).toBe('admin');
    expect(dir.headers.get('Satchel-Session')).toBeNull();
  });

  it('answers 409 when a path is of the other type', async () => {
    await h.request('PUT', file('/f'), { body: 'file' });
    const res = await h.request('PUT', file('/f/child.txt'), { body: 'x' });
    expect(await problemOf(res)).toMatchObject({ status: 409, code: 'CONFLICT' });
  });
});

describe('roles and locks', () => {
  it('lets a viewer read but not write (403), and hides the workspace from strangers (404)', async () => {
    await h.request('PUT', file('/r.txt'), { body: 'r' });
    expect((await h.request('GET', file('/r.txt'), { key: h.keys.viewer })).status).toBe(200);
    const write = await h.request('PUT', file('/r.txt'), { key: h.keys.viewer, body: 'w' });
    expect(await problemOf(write)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    for (const [method, path] of [
      ['GET', file('/r.txt')],
      ['PUT', file('/r.txt')],
      ['GET', '/v1/workspaces/demo'],
    ] as const) {
      const body = method === 'PUT' ? 'x' : undefined;
      const res = await h.request(method, path, {
        key: h.keys.stranger,
        ...(body ? { body } : {}),
      });
      expect(await problemOf(res), `${method} ${path}`).toMatchObject({ status: 404 });
    }
  });

  it('answers 423 for a path locked by another key; the holder writes with its token', async () => {
    const lock = await h.request('POST', '/v1/workspaces/demo/locks', {
      key: h.keys.editor,
      body: { path: '/locked.txt', ttlSeconds: 60 },
    });
    expect(lock.status).toBe(201);
    const { token } = (await lock.json()) as { token: number };
    const other = await h.request('PUT', file('/locked.txt'), { body: 'admin' });
    expect(await problemOf(other)).toMatchObject({ status: 423, code: 'LOCKED', holder: 'ed' });
    const holder = await h.request('PUT', file('/locked.txt'), {
      key: h.keys.editor,
      body: 'mine',
      headers: { 'Satchel-Lock-Token': String(token) },
    });
    expect(holder.status).toBe(200);
    const stale = await h.request('PUT', file('/locked.txt'), {
      key: h.keys.editor,
      body: 'stale',
      headers: { 'Satchel-Lock-Token': String(token + 1) },
    });
    expect(await problemOf(stale)).toMatchObject({ status: 423, reason: 'stale_token' });
    const junk = await h.request('PUT', file('/locked.txt'), {
      key: h.keys.editor,
      headers: { 'Satchel-Lock-Token': 'abc' },
    });
    expect(await problemOf(junk)).toMatchObject({ status: 400, field: 'Satchel-Lock-Token' });
  });
});

describe('paths', () => {
  it('passes unicode and percent-encoded names to core decoded exactly once', async () => {
    const cases: [string, string][] = [
      ['/caf%C3%A9/%E2%9C%93%20done.txt', '/café/✓ done.txt'],
      ['/%F0%9F%93%81/emoji.txt', '/📁/emoji.txt'],
      ['/100%25.txt', '/100%.txt'],
      ['/%252e%252e', '/%2e%2e'],
      ['/a%3Fb%23c.txt', '/a?b#c.txt'],
      ['/nested%2Fby%2Fslash.txt', '/nested/by/slash.txt'],
      // NFD "e" + combining acute is stored NFC, as core normalises.
      ['/cafe%CC%81.txt', '/café.txt'],
    ];
    for (const [encoded, path] of cases) {
      const put = await h.request('PUT', file(encoded), { body: path });
      expect(put.status, encoded).toBe(200);
      expect(((await put.json()) as { path: string }).path, encoded).toBe(path);
      expect(await (await h.request('GET', file(encoded))).text()).toBe(path);
    }
    const listed = await h.request(
      'GET',
      `/v1/workspaces/demo/files?path=${encodeURIComponent('/café')}`,
    );
    expect(await listed.json()).toMatchObject({ items: [{ path: '/café/✓ done.txt' }] });
  });

  it('refuses ".." and other invalid paths with 400 INVALID_PATH', async () => {
    for (const encoded of ['/a%2F..%2Fb', '/..%2Fetc', '/a%00b', '/a%5Cb', '/%C3', '/x//y']) {
      const res = await h.request('PUT', file(encoded), { body: 'x' });
      expect(await problemOf(res), encoded).toMatchObject({ status: 400, code: 'INVALID_PATH' });
    }
    const move = await h.request('POST', '/v1/workspaces/demo/move', {
      body: { from: '/../x', to: '/y' },
    });
    expect(await problemOf(move)).toMatchObject({ status: 400, code: 'INVALID_PATH' });
  });
});

describe('listing', () => {
  it('lists a directory, a subtree or a glob, in pages bounded by limit', async () => {
    for (const name of ['a.md', 'b.md', 'c.txt', 'sub/d.md']) {
      await h.request('PUT', file(`/docs/${name}`), { body: name });
    }
    const dir = await (await h.request('GET', '/v1/workspaces/demo/files?path=/docs')).json();
    expect(dir).toMatchObject({ total: 4, nextCursor: null });
    const tree = await h.request(
      'GET',
      '/v1/workspaces/demo/files?path=/docs&recursive&glob=**/*.md',
    );
    expect(((await tree.json()) as { items: { path: string }[] }).items.map((i) => i.path)).toEqual(
      ['/docs/a.md', '/docs/b.md', '/docs/sub/d.md'],
    );
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const query: string = cursor === '' ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const page = (await (
        await h.request(
          'GET',
          `/v1/workspaces/demo/files?path=/docs&recursive=true&limit=2${query}`,
        )
      ).json()) as { items: { path: string }[]; nextCursor: string | null; total: number };
      expect(page.items.length).toBeLessThanOrEqual(2);
      expect(page.total).toBe(5);
      seen.push(...page.items.map((i) => i.path));
      cursor = page.nextCursor;
    }
    expect(seen).toHaveLength(5);
    for (const bad of ['limit=0', 'limit=1001', 'limit=x', 'recursive=maybe']) {
      const res = await h.request('GET', `/v1/workspaces/demo/files?${bad}`);
      expect(await problemOf(res), bad).toMatchObject({ status: 400, field: bad.split('=')[0] });
    }
  });
});
