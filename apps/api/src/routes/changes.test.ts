/** The change feed over HTTP: pages, long polls, and Server-Sent Events with heartbeats. */
import type { ChangesPage } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, problemOf } from '../test-support/harness.js';
import { SseReader } from '../test-support/sse.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness({ heartbeatSeconds: 0.2 });
});
afterEach(async () => {
  await h.close();
});

const changes = '/v1/workspaces/demo/changes';
const write = (path: string, body = path) =>
  h.request('PUT', `/v1/workspaces/demo/files${path}`, { body });
const page = async (query: string): Promise<ChangesPage> =>
  (await (await h.request('GET', `${changes}${query}`)).json()) as ChangesPage;
const stream = async (headers: Record<string, string> = {}, query = '') =>
  new SseReader(
    await h.request('GET', `${changes}${query}`, {
      headers: { Accept: 'text/event-stream', ...headers },
    }),
  );

describe('pages and long polls', () => {
  it('pages changes after a seq, never splitting one change', async () => {
    await write('/a.txt');
    await write('/d/e/f.txt'); // one change, three events: /d, /d/e, /d/e/f.txt
    await write('/b.txt');
    const all = await page('');
    expect(all.events.map((e) => [e.seq, e.path])).toEqual([
      [1, '/a.txt'],
      [2, '/d'],
      [2, '/d/e'],
      [2, '/d/e/f.txt'],
      [3, '/b.txt'],
    ]);
    expect(all.cursor).toBe(3);
    const first = await page('?limit=2');
    expect(first.events.map((e) => e.seq)).toEqual([1]);
    expect((await page(`?after=${first.cursor}&limit=2`)).events.map((e) => e.seq)).toEqual([
      2, 2, 2,
    ]);
    expect(await page('?after=3')).toEqual({ events: [], cursor: 3 });
    expect((await page('?path=/d/e')).events.map((e) => e.path)).toEqual(['/d/e', '/d/e/f.txt']);
  });

  it('long-polls with wait=S: wakes on the next change, or returns empty when time is up', async () => {
    const started = Date.now();
    expect(await page('?wait=0.3')).toEqual({ events: [], cursor: 0 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const polling = page('?after=0&wait=10');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await write('/late.txt');
    expect((await polling).events.map((e) => e.path)).toEqual(['/late.txt']);
  });

  it('refuses bad parameters and hides the workspace from strangers', async () => {
    for (const [query, field] of [
      ['?wait=61', 'wait'],
      ['?wait=soon', 'wait'],
      ['?after=-1', 'after'],
      ['?limit=0', 'limit'],
    ]) {
      expect(await problemOf(await h.request('GET', `${changes}${query}`)), query).toMatchObject({
        status: 400,
        field,
      });
    }
    const stranger = await h.request('GET', changes, {
      key: h.keys.stranger,
      headers: { Accept: 'text/event-stream' },
    });
    expect(await problemOf(stranger)).toMatchObject({ status: 404 });
  });
});

describe('Server-Sent Events', () => {
  it('streams past and live changes as `change` events with the seq as id', async () => {
    await write('/before.txt');
    const sse = await stream();
    const past = await sse.next();
    expect(past).toMatchObject({ event: 'change', id: '1' });
    expect(JSON.parse(past.data)).toMatchObject({ seq: 1, path: '/before.txt', type: 'write' });
    await write('/x/live.txt');
    const live = await sse.take(2);
    // Only the last event of a change carries the id, so a resume never splits a change.
    expect(live.map((m) => [JSON.parse(m.data).path, m.id])).toEqual([
      ['/x', undefined],
      ['/x/live.txt', '2'],
    ]);
    await sse.cancel();
  });

  it('resumes after Last-Event-ID (which wins over ?after=) and sends heartbeats when idle', async () => {
    await write('/1.txt');
    await write('/2.txt');
    await write('/3.txt');
    const sse = await stream({ 'Last-Event-ID': '2' }, '?after=0');
    expect(JSON.parse((await sse.next()).data)).toMatchObject({ seq: 3 });
    expect(await sse.nextComment()).toBe('keep-alive');
    await sse.cancel();
    const bad = await h.request('GET', changes, {
      headers: { Accept: 'text/event-stream', 'Last-Event-ID': 'abc' },
    });
    expect(await problemOf(bad)).toMatchObject({ status: 400, field: 'Last-Event-ID' });
  });

  it('answers JSON without Accept: text/event-stream and for HEAD', async () => {
    const head = await h.request('HEAD', changes, { headers: { Accept: 'text/event-stream' } });
    expect(head.headers.get('Content-Type')).toContain('application/json');
    const json = await h.request('GET', changes);
    expect(json.headers.get('Vary')).toBe('Accept');
  });
});
