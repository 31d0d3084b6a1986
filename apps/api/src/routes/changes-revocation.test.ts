/**
 * Open change feeds end when access ends (security issue 20, item 4): a revoked key or a removed
 * member stops receiving events within the re-check interval, on SSE and on long polls.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../test-support/harness.js';
import { SseReader } from '../test-support/sse.js';

let h: Harness;
let key: string;
let keyId: string;
beforeEach(async () => {
  h = await createHarness({ heartbeatSeconds: 0.2, accessRecheckSeconds: 0.2 });
  await h.engine.createPrincipal({ name: 'watcher', kind: 'agent' });
  await h.engine.setMember('demo', 'watcher', 'viewer');
  const created = await h.engine.createKey({ principal: 'watcher' });
  key = created.key;
  keyId = created.info.id;
});
afterEach(async () => {
  await h.close();
});

const changes = '/v1/workspaces/demo/changes';
const write = (path: string) =>
  h.request('PUT', `/v1/workspaces/demo/files${path}`, { body: path });

async function openStream(): Promise<SseReader> {
  const res = await h.request('GET', changes, { key, headers: { Accept: 'text/event-stream' } });
  expect(res.status).toBe(200);
  return new SseReader(res);
}

describe('a live change feed', () => {
  it('ends with an UNAUTHENTICATED error event once its key is revoked, sending nothing newer', async () => {
    const sse = await openStream();
    await write('/before.txt');
    expect(JSON.parse((await sse.next()).data)).toMatchObject({ path: '/before.txt' });
    await h.engine.revokeKey(keyId);
    await write('/after.txt');
    const last = await sse.next(3000);
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
    await expect(sse.next(3000)).rejects.toThrow(/ended/);
  });

  it('ends with a NOT_FOUND error event once its principal is no longer a member', async () => {
    const sse = await openStream();
    await h.engine.removeMember('demo', 'watcher');
    await write('/secret.txt');
    const last = await sse.next(3000);
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ code: 'NOT_FOUND' });
    await expect(sse.next(3000)).rejects.toThrow(/ended/);
  });
});

describe('a long poll', () => {
  it('answers 401 as a fresh request would once its key is revoked mid-wait', async () => {
    const started = Date.now();
    const poll = h.request('GET', `${changes}?after=0&wait=30`, { key });
    await new Promise((r) => setTimeout(r, 300));
    await h.engine.revokeKey(keyId);
    await write('/after.txt');
    const res = await poll;
    expect(res.status).toBe(401);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('answers 404 once its principal is removed mid-wait', async () => {
    const poll = h.request('GET', `${changes}?after=0&wait=30`, { key });
    await new Promise((r) => setTimeout(r, 300));
    await h.engine.removeMember('demo', 'watcher');
    await write('/secret.txt');
    expect((await poll).status).toBe(404);
  });
});
