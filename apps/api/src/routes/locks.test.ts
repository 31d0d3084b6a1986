/** Locks over HTTP: acquire, list, renew, release, break, and their refusals. */
import type { Lock } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, problemOf } from '../test-support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const locks = '/v1/workspaces/demo/locks';

async function acquire(key: string, body: Record<string, unknown>): Promise<Lock> {
  const res = await h.request('POST', locks, { key, body });
  expect(res.status).toBe(201);
  return (await res.json()) as Lock;
}

describe('locks', () => {
  it('acquires, lists, renews and releases a lock', async () => {
    const lock = await acquire(h.keys.editor, { path: '/doc.md', ttlSeconds: 30 });
    expect(lock).toMatchObject({ path: '/doc.md', holder: 'ed', mode: 'exclusive', scope: 'file' });
    const listed = await (await h.request('GET', `${locks}?path=/doc.md`)).json();
    expect(listed).toMatchObject({ items: [{ id: lock.id }], nextCursor: null });

    const renewed = await h.request('POST', `${locks}/${lock.id}/renew`, {
      key: h.keys.editor,
      body: { ttlSeconds: 600 },
    });
    expect(renewed.status).toBe(200);
    expect(Date.parse(((await renewed.json()) as Lock).expiresAt)).toBeGreaterThan(
      Date.parse(lock.expiresAt),
    );
    // An empty body renews for the default lease.
    expect(
      (await h.request('POST', `${locks}/${lock.id}/renew`, { key: h.keys.editor })).status,
    ).toBe(200);

    const released = await h.request('DELETE', `${locks}/${lock.id}`, { key: h.keys.editor });
    expect(released.status).toBe(204);
    expect(await (await h.request('GET', locks)).json()).toMatchObject({ items: [] });
  });

  it('refuses a conflicting lock with 423, and waits for it with waitSeconds', async () => {
    const held = await acquire(h.keys.editor, { path: '/dir', scope: 'tree' });
    const conflict = await h.request('POST', locks, { body: { path: '/dir/file.txt' } });
    expect(await problemOf(conflict)).toMatchObject({ status: 423, code: 'LOCKED', holder: 'ed' });
    const waiting = h.request('POST', locks, { body: { path: '/dir/file.txt', waitSeconds: 5 } });
    await h.request('DELETE', `${locks}/${held.id}`, { key: h.keys.editor });
    expect((await waiting).status).toBe(201);
  });

  it('breaks someone else’s lock only for owners, with ?break=true', async () => {
    const held = await acquire(h.keys.editor, { path: '/x' });
    const notMine = await h.request('DELETE', `${locks}/${held.id}`);
    expect(await problemOf(notMine)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const byViewer = await h.request('DELETE', `${locks}/${held.id}?break=true`, {
      key: h.keys.viewer,
    });
    expect(byViewer.status).toBe(403);
    const broken = await h.request('DELETE', `${locks}/${held.id}?break=true`);
    expect(broken.status).toBe(200);
    expect(await broken.json()).toMatchObject({ id: held.id, holder: 'ed' });
  });

  it('refuses writes without the token to everyone, the holder’s own key included, until broken', async () => {
    const held = await acquire(h.keys.editor, { path: '/report.md' });
    const file = '/v1/workspaces/demo/files/report.md';
    // A second worker on the holder's key, without the token.
    const sameKey = await h.request('PUT', file, { key: h.keys.editor, body: 'from worker 2' });
    expect(await problemOf(sameKey)).toMatchObject({
      status: 423,
      code: 'LOCKED',
      holder: 'ed',
      lockId: held.id,
    });
    const owner = await h.request('PUT', file, { body: 'from the owner' });
    expect((await problemOf(owner)).status).toBe(423);
    const fenced = await h.request('PUT', file, {
      key: h.keys.editor,
      body: 'from the holder',
      headers: { 'Satchel-Lock-Token': String(held.token) },
    });
    expect(fenced.status).toBe(200);
    const removed = await h.request('DELETE', file, { key: h.keys.editor });
    expect((await problemOf(removed)).status).toBe(423);
    // The same token signs an upload URL that may write under the lock.
    const signed = await h.request('POST', `${file}?upload-url`, {
      key: h.keys.editor,
      body: { lockToken: held.token },
    });
    const { url } = (await signed.json()) as { url: string };
    const put = await h.request('PUT', new URL(url).pathname, { body: 'by url' });
    expect(put.status).toBeLessThan(300);

    expect((await h.request('DELETE', `${locks}/${held.id}?break=true`)).status).toBe(200);
    expect((await h.request('PUT', file, { body: 'after the break' })).status).toBe(200);
  });

  it('validates bodies with the core schema and lets viewers list but not lock', async () => {
    const bad = await h.request('POST', locks, { body: { path: '/x', ttlSeconds: 99999 } });
    expect(await problemOf(bad)).toMatchObject({ status: 400, field: 'ttlSeconds' });
    const mode = await h.request('POST', locks, { body: { path: '/x', mode: 'forever' } });
    expect(await problemOf(mode)).toMatchObject({ status: 400, field: 'mode' });
    expect((await h.request('GET', locks, { key: h.keys.viewer })).status).toBe(200);
    const viewer = await h.request('POST', locks, { key: h.keys.viewer, body: { path: '/x' } });
    expect(viewer.status).toBe(403);
    const unknown = await h.request('POST', `${locks}/nope/renew`);
    expect(unknown.status).toBe(404);
  });
});
