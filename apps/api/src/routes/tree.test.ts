/** Move, copy, edit, mkdir, and history (versions, diff, restore) over HTTP. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, problemOf } from '../test-support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  await h.request('PUT', '/v1/workspaces/demo/files/a.txt', { body: 'alpha\nbeta\n' });
});
afterEach(async () => {
  await h.close();
});

const post = (op: string, body: Record<string, unknown>, key?: string) =>
  h.request('POST', `/v1/workspaces/demo/${op}`, { body, ...(key ? { key } : {}) });
const read = async (path: string) =>
  (await h.request('GET', `/v1/workspaces/demo/files${path}`)).text();

describe('batch writes', () => {
  it('writes text and base64 bytes in one transaction, honouring session and lock headers', async () => {
    const res = await post('batch', {
      files: [
        { path: '/b/t.txt', content: 'tëxt' },
        { path: '/b/x.bin', content: 'AAH/', encoding: 'base64', ifNoneMatch: '*' },
      ],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      items: [
        { path: '/b/t.txt', size: 5 },
        { path: '/b/x.bin', size: 3 },
      ],
      nextCursor: null,
    });
    const bin = await h.request('GET', '/v1/workspaces/demo/files/b/x.bin');
    expect(new Uint8Array(await bin.arrayBuffer())).toEqual(new Uint8Array([0, 1, 255]));

    const lock = (await (
      await h.request('POST', '/v1/workspaces/demo/locks', { body: { path: '/b/t.txt' } })
    ).json()) as { token: number };
    const others = await post(
      'batch',
      { files: [{ path: '/b/t.txt', content: 'e' }] },
      h.keys.editor,
    );
    expect(await problemOf(others)).toMatchObject({ status: 423, code: 'LOCKED' });
    const fenced = await h.request('POST', '/v1/workspaces/demo/batch', {
      body: { files: [{ path: '/b/t.txt', content: 'f' }] },
      headers: { 'Satchel-Lock-Token': String(lock.token), 'Satchel-Session': 'b%C3%A4tch' },
    });
    expect(await fenced.json()).toMatchObject({ items: [{ path: '/b/t.txt', session: 'bätch' }] });

    // All or nothing.
    const failed = await post('batch', {
      files: [
        { path: '/b/new.txt', content: 'n' },
        { path: '/a.txt', content: 'x', ifMatch: 99 },
      ],
    });
    expect(await problemOf(failed)).toMatchObject({ status: 412, path: '/a.txt' });
    expect((await h.request('HEAD', '/v1/workspaces/demo/files/b/new.txt')).status).toBe(404);
  });

  it('validates the body, naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'files'],
      [{ files: [] }, 'files'],
      [
        { files: Array.from({ length: 1001 }, (_, i) => ({ path: `/${i}`, content: '' })) },
        'files',
      ],
      [{ files: [{ path: '/x', content: 1 }] }, 'files.0.content'],
      [{ files: [{ path: '/x', content: 'a', encoding: 'hex' }] }, 'files.0.encoding'],
      [{ files: [{ path: '/x', content: 'not base64!', encoding: 'base64' }] }, 'files.0.content'],
      [{ files: [{ path: '/x', content: 'a', ifMatch: -1 }] }, 'files.0.ifMatch'],
      [{ files: [{ path: '/x', content: 'a', mode: 1 }] }, 'files.0.mode'],
      [{ files: [{ path: '/x', content: 'a' }], extra: true }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await h.request('POST', '/v1/workspaces/demo/batch', {
        body: body as Record<string, unknown>,
      });
      expect(await problemOf(res), field).toMatchObject({
        status: 400,
        code: 'INVALID_INPUT',
        field,
      });
    }
    const viewer = await post('batch', { files: [{ path: '/v', content: 'v' }] }, h.keys.viewer);
    expect(await problemOf(viewer)).toMatchObject({ status: 403 });
  });
});

describe('tree operations', () => {
  it('moves a file (history follows), refusing an occupied destination with 409', async () => {
    await h.request('PUT', '/v1/workspaces/demo/files/other.txt', { body: 'o' });
    const conflict = await post('move', { from: '/a.txt', to: '/other.txt' });
    expect(await problemOf(conflict)).toMatchObject({ status: 409, code: 'CONFLICT' });
    const stale = await post('move', { from: '/a.txt', to: '/b.txt', ifMatch: 99 });
    expect(stale.status).toBe(412);
    const moved = await post('move', { from: '/a.txt', to: '/b.txt' });
    expect(moved.status).toBe(200);
    expect(moved.headers.get('ETag')).toBe('"3"');
    expect(await read('/b.txt')).toBe('alpha\nbeta\n');
    const versions = await (await h.request('GET', '/v1/workspaces/demo/versions/b.txt')).json();
    expect(versions).toMatchObject({
      items: [
        { op: 'move', seq: 3 },
        { op: 'write', seq: 1 },
      ],
    });
  });

  it('copies, makes directories, and needs a body', async () => {
    expect((await post('copy', { from: '/a.txt', to: '/c.txt' })).status).toBe(200);
    expect(await read('/c.txt')).toBe('alpha\nbeta\n');
    const dir = await post('mkdir', { path: '/d/e' });
    expect(await dir.json()).toMatchObject({ path: '/d/e', type: 'directory' });
    const missing = await h.request('POST', '/v1/workspaces/demo/mkdir');
    expect(await problemOf(missing)).toMatchObject({ status: 400, field: 'body' });
  });

  it('edits text with a diff, dry runs, and names a bad edit', async () => {
    const dry = await post('edit', {
      path: '/a.txt',
      edits: [{ oldText: 'beta', newText: 'BETA' }],
      dryRun: true,
    });
    expect(await dry.json()).toMatchObject({ dryRun: true, replacements: 1 });
    expect(await read('/a.txt')).toBe('alpha\nbeta\n');
    const real = await post('edit', {
      path: '/a.txt',
      edits: [{ oldText: 'beta', newText: 'BETA' }],
    });
    const result = (await real.json()) as { diff: string; info: { seq: number } };
    expect(result.diff).toContain('+BETA');
    expect(real.headers.get('ETag')).toBe(`"${result.info.seq}"`);
    const absent = await post('edit', {
      path: '/a.txt',
      edits: [{ oldText: 'gamma', newText: 'x' }],
    });
    expect(await problemOf(absent)).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    const empty = await post('edit', { path: '/a.txt', edits: [] });
    expect(await problemOf(empty)).toMatchObject({ status: 400, field: 'edits' });
  });

  it('refuses changes to a viewer (403)', async () => {
    for (const [op, body] of [
      ['move', { from: '/a.txt', to: '/z.txt' }],
      ['copy', { from: '/a.txt', to: '/z.txt' }],
      ['mkdir', { path: '/z' }],
      ['edit', { path: '/a.txt', edits: [{ oldText: 'alpha', newText: 'z' }] }],
      ['restore', { path: '/a.txt', seq: 1 }],
    ] as const) {
      expect((await post(op, body, h.keys.viewer)).status, op).toBe(403);
    }
  });
});

describe('history', () => {
  it('lists versions newest first, in pages', async () => {
    await h.request('PUT', '/v1/workspaces/demo/files/a.txt', { body: 'two' });
    await h.request('PUT', '/v1/workspaces/demo/files/a.txt', { body: 'three' });
    const page = (await (
      await h.request('GET', '/v1/workspaces/demo/versions/a.txt?limit=2')
    ).json()) as { items: { seq: number }[]; nextCursor: string };
    expect(page.items.map((v) => v.seq)).toEqual([3, 2]);
    const rest = await h.request(
      'GET',
      `/v1/workspaces/demo/versions/a.txt?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`,
    );
    expect(await rest.json()).toMatchObject({ items: [{ seq: 1 }], nextCursor: null });
    expect((await h.request('GET', '/v1/workspaces/demo/versions/none.txt')).status).toBe(404);
  });

  it('diffs versions as JSON or as a bare unified diff', async () => {
    await h.request('PUT', '/v1/workspaces/demo/files/a.txt', { body: 'alpha\ngamma\n' });
    const json = await h.request('GET', '/v1/workspaces/demo/diff?path=/a.txt&from=1&to=2');
    expect(await json.json()).toMatchObject({ path: '/a.txt', from: 1, to: 2, binary: false });
    const text = await h.request('GET', '/v1/workspaces/demo/diff?path=/a.txt', {
      headers: { Accept: 'text/x-diff' },
    });
    expect(text.headers.get('Content-Type')).toContain('text/x-diff');
    expect(await text.text()).toMatch(/-beta\n\+gamma/);
    const noPath = await h.request('GET', '/v1/workspaces/demo/diff');
    expect(await problemOf(noPath)).toMatchObject({ status: 400, field: 'path' });
  });

  it('restores an old version as a new one', async () => {
    await h.request('PUT', '/v1/workspaces/demo/files/a.txt', { body: 'changed' });
    const restored = await post('restore', { path: '/a.txt', seq: 1 });
    expect(restored.status).toBe(200);
    expect(await restored.json()).toMatchObject({ seq: 3 });
    expect(await read('/a.txt')).toBe('alpha\nbeta\n');
    const bad = await post('restore', { path: '/a.txt', seq: 'one' });
    expect(await problemOf(bad)).toMatchObject({ status: 400, field: 'seq' });
    // Every option of core's restore: conditions, message, session.
    const exists = await post('restore', { path: '/a.txt', seq: 2, ifNoneMatch: '*' });
    expect(await problemOf(exists)).toMatchObject({ status: 412, expected: '*' });
    const stale = await post('restore', { path: '/a.txt', seq: 2, ifMatch: 1 });
    expect(await problemOf(stale)).toMatchObject({ status: 412, expected: 1, actual: 3 });
    const badCondition = await post('restore', { path: '/a.txt', seq: 2, ifNoneMatch: '"3"' });
    expect(await problemOf(badCondition)).toMatchObject({ status: 400, field: 'ifNoneMatch' });
    const ok = await post('restore', {
      path: '/a.txt',
      seq: 2,
      ifMatch: 3,
      message: 'redo',
      session: 'r1',
    });
    expect(await ok.json()).toMatchObject({ seq: 4, session: 'r1' });
    const versions = await (await h.request('GET', '/v1/workspaces/demo/versions/a.txt')).json();
    expect((versions as { items: unknown[] }).items[0]).toMatchObject({
      seq: 4,
      message: 'redo',
      session: 'r1',
    });
  });
});
