/** Quotas over REST: 413 problem+json naming usage and limit, refused before the body is read; usage. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, problemOf } from '../test-support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  const set = await h.request('PATCH', '/v1/workspaces/demo', {
    body: { quotaBytes: 1000, quotaFiles: 5 },
  });
  expect(set.status).toBe(200);
  await h.request('PUT', '/v1/workspaces/demo/files/a.txt', { body: 'x'.repeat(600) });
});
afterEach(async () => {
  await h.close();
});

describe('workspace quotas over REST', () => {
  it('answer 413 QUOTA_EXCEEDED as problem+json, before reading a declared body', async () => {
    let pulled = false;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled = true;
          controller.enqueue(new Uint8Array(500));
          controller.close();
        },
        // Nothing is pulled until the server reads the body.
      },
      { highWaterMark: 0 },
    );
    const res = await h.request('PUT', '/v1/workspaces/demo/files/b.bin', {
      body,
      headers: { 'Content-Length': '500' },
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('Content-Type')).toMatch(/application\/problem\+json/);
    const problem = await problemOf(res);
    expect(problem).toMatchObject({
      status: 413,
      title: 'Workspace quota exceeded',
      code: 'QUOTA_EXCEEDED',
      quota: 'bytes',
      usage: 600,
      limit: 1000,
      requested: 500,
    });
    expect(String(problem.detail)).toMatch(/limited to 1000 bytes of current files; it holds 600/);
    expect(pulled).toBe(false);
    expect((await h.request('GET', '/v1/workspaces/demo/files/b.bin')).status).toBe(404);
  });

  it('refuse a batch, a copy and an append past the quota, writing nothing', async () => {
    const batch = await h.request('POST', '/v1/workspaces/demo/batch', {
      body: {
        files: [
          { path: '/1.txt', content: 'y'.repeat(300) },
          { path: '/2.txt', content: 'y'.repeat(300) },
        ],
      },
    });
    expect(batch.status).toBe(413);
    const copy = await h.request('POST', '/v1/workspaces/demo/copy', {
      body: { from: '/a.txt', to: '/b.txt' },
    });
    expect(copy.status).toBe(413);
    const append = await h.request('POST', '/v1/workspaces/demo/files/a.txt?append', {
      body: 'z'.repeat(401),
    });
    expect(append.status).toBe(413);
    const usage = await h.request('GET', '/v1/workspaces/demo/usage');
    expect(await usage.json()).toEqual({
      workspace: 'demo',
      currentBytes: 600,
      historyBytes: 600,
      deduplicatedBytes: 600,
      files: 1,
      quota: { bytes: 1000, historyBytes: null, files: 5 },
    });
  });

  it('let only admins set quotas; members read usage', async () => {
    await h.engine.createPrincipal({ name: 'own', kind: 'agent' });
    await h.engine.setMember('demo', 'own', 'owner');
    const { key } = await h.engine.createKey({ principal: 'own' });
    const owner = await h.request('PATCH', '/v1/workspaces/demo', {
      key,
      body: { quotaBytes: null },
    });
    expect(owner.status).toBe(403);
    const viewer = await h.request('GET', '/v1/workspaces/demo/usage', { key: h.keys.viewer });
    expect(viewer.status).toBe(200);
    expect(await viewer.json()).toMatchObject({ currentBytes: 600, files: 1 });
  });
});
