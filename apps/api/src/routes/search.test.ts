/** Search over HTTP: grep, search, ask, status, reindex, PATCH settings, and their refusals. */
import { RemoteSatchel } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, serve } from '../serve.js';
import { createHarness, type Harness, problemOf } from '../test-support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  await h.engine.writeFile(
    'demo',
    '/notes/run.md',
    '# Run 7\n\nThe run concluded: use the blue config.\n',
  );
  await h.engine.writeFile('demo', '/src/app.ts', 'const config = load();\nexport { config };\n');
});
afterEach(async () => {
  await h.close();
});

const ws = '/v1/workspaces/demo';

async function json(res: Response): Promise<Record<string, unknown>> {
  expect(res.headers.get('Content-Type')).toContain('application/json');
  return (await res.json()) as Record<string, unknown>;
}

describe('search routes', () => {
  it('greps with pattern, path, glob and flags', async () => {
    const res = await h.request('GET', `${ws}/grep?pattern=config&glob=**/*.ts`, {
      key: h.keys.viewer,
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      hits: [
        { path: '/src/app.ts', line: 1, text: 'const config = load();' },
        { path: '/src/app.ts', line: 2 },
      ],
      truncated: false,
    });
    const regex = await h.request(
      'GET',
      `${ws}/grep?pattern=${encodeURIComponent('^the run')}&regex&caseSensitive=false&path=/notes`,
    );
    expect(await json(regex)).toMatchObject({ hits: [{ path: '/notes/run.md', line: 3 }] });
  });

  it('refuses bad grep input with 400 problems', async () => {
    expect(await problemOf(await h.request('GET', `${ws}/grep`))).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
      field: 'pattern',
    });
    const backref = await h.request(
      'GET',
      `${ws}/grep?pattern=${encodeURIComponent('(a)\\1')}&regex=true`,
    );
    expect(await problemOf(backref)).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    const limit = await h.request('GET', `${ws}/grep?pattern=x&limit=abc`);
    expect(await problemOf(limit)).toMatchObject({ status: 400, field: 'limit' });
    const stranger = await h.request('GET', `${ws}/grep?pattern=x`, { key: h.keys.stranger });
    expect(await problemOf(stranger)).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('searches with citations, and asks without a model', async () => {
    const res = await h.request('GET', `${ws}/search?q=concluded%20config&limit=1`, {
      key: h.keys.viewer,
    });
    const body = await json(res);
    expect(body).toMatchObject({
      mode: 'bm25',
      items: [{ citation: { path: '/notes/run.md', seq: 1, lineStart: 1, lineEnd: 3 } }],
    });
    const asked = await h.request('POST', `${ws}/ask`, {
      body: { question: 'what did the run conclude?' },
    });
    expect(await json(asked)).toMatchObject({
      answer: null,
      model: null,
      note: 'no language model is configured',
      passages: [{ citation: { path: '/notes/run.md' } }],
    });
    expect(await problemOf(await h.request('GET', `${ws}/search`))).toMatchObject({
      status: 400,
      field: 'q',
    });
    expect(await problemOf(await h.request('GET', `${ws}/search?q=%20`))).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
    });
    const noQuestion = await h.request('POST', `${ws}/ask`, { body: { q: 'x' } });
    expect(await problemOf(noQuestion)).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
  });

  it('switches indexing with PATCH (owners), shows status and reindexes', async () => {
    const byEditor = await h.request('PATCH', ws, {
      key: h.keys.editor,
      body: { indexing: 'off' },
    });
    expect(await problemOf(byEditor)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const bad = await h.request('PATCH', ws, { body: { indexing: 'sometimes' } });
    expect(await problemOf(bad)).toMatchObject({ status: 400, field: 'indexing' });
    const unknown = await h.request('PATCH', ws, { body: { retention: 3 } });
    expect(await problemOf(unknown)).toMatchObject({ status: 400, code: 'INVALID_INPUT' });

    const off = await h.request('PATCH', ws, { body: { indexing: 'off' } });
    expect(await json(off)).toMatchObject({ name: 'demo', settings: { indexing: 'off' } });
    const refused = await h.request('GET', `${ws}/search?q=config`);
    expect(await problemOf(refused)).toMatchObject({ status: 400, reason: 'indexing_off' });
    expect(await json(await h.request('GET', ws))).toMatchObject({ settings: { indexing: 'off' } });

    await h.request('PATCH', ws, { body: { indexing: 'on' } });
    const reindexed = await h.request('POST', `${ws}/search/reindex`);
    expect(await json(reindexed)).toMatchObject({ enabled: true, files: 2, lag: 0 });
    const status = await h.request('GET', `${ws}/search/status`, { key: h.keys.viewer });
    expect(await json(status)).toMatchObject({ enabled: true, headSeq: 2, indexedSeq: 2, lag: 0 });
    const byViewer = await h.request('POST', `${ws}/search/reindex`, { key: h.keys.viewer });
    expect(await problemOf(byViewer)).toMatchObject({ status: 403 });
  });
});

describe('RemoteSatchel search methods', () => {
  let server: RunningServer;
  beforeEach(async () => {
    server = await serve(h.engine, { port: 0, api: { logFault: () => undefined } });
  });
  afterEach(async () => {
    await server.close();
  });

  it('agree with the engine behind the server', async () => {
    const remote = new RemoteSatchel({ url: server.url, token: h.keys.admin });
    expect(await remote.grep('demo', 'CONFIG', { caseSensitive: false, limit: 1 })).toEqual(
      await h.engine.grep('demo', 'CONFIG', { caseSensitive: false, limit: 1 }),
    );
    expect(await remote.search('demo', 'config', { path: '/src' })).toEqual(
      await h.engine.search('demo', 'config', { path: '/src' }),
    );
    expect((await remote.ask('demo', 'config?')).note).toBe('no language model is configured');
    expect(await remote.searchStatus('demo')).toEqual(await h.engine.searchStatus('demo'));
    expect((await remote.updateWorkspace('demo', { indexing: 'off' })).settings.indexing).toBe(
      'off',
    );
    await expect(remote.search('demo', 'config')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { reason: 'indexing_off' },
    });
    await remote.updateWorkspace('demo', { indexing: 'on' });
    expect(await remote.reindex('demo')).toMatchObject({ files: 2, lag: 0 });
    await expect(remote.grep('demo', '(?=x)', { regex: true })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe('a pathological grep on a live server', () => {
  let server: RunningServer;
  beforeEach(async () => {
    server = await serve(h.engine, { port: 0, api: { logFault: () => undefined } });
  });
  afterEach(async () => {
    await server.close();
  });

  it('leaves /healthz answering while it runs, and stops at its time budget', async () => {
    // One 200 KB line and the costliest pattern accepted: tens of seconds of matching.
    await h.engine.writeFile('demo', '/one-line.txt', 'a'.repeat(200_000));
    const pattern = encodeURIComponent('(.*a){399}');
    const started = performance.now();
    const grep = fetch(`${server.url}${ws}/grep?pattern=${pattern}&regex&timeoutMs=3000`, {
      headers: { Authorization: `Bearer ${h.keys.viewer}` },
    });
    // Asked 300 ms in, answered within a second of that: the timer itself must not be held up.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1300);
    const res = await grep;
    expect(await json(res)).toMatchObject({ truncated: true, reason: 'time' });
    expect(performance.now() - started).toBeLessThan(6000);
  });
});
