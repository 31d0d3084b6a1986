/**
 * Two engines on one PostgreSQL schema, as two nodes are: wake-ups cross between them at once
 * (not at the 1 s re-check), webhook deliveries are sent once, and a node with another webhook
 * key refuses to start. Skipped where no test database is reachable (test-support/postgres.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestSchema,
  postgresUrlForTests,
  type TestSchema,
} from '../test-support/postgres.js';
import { tempDir } from '../test-support/temp.js';
import { eventually, startReceiver } from '../test-support/webhook-receiver.js';
import { openSatchel } from './open.js';
import type { SatchelEngine } from './satchel-engine.js';

const url = postgresUrlForTests();
const KEY = randomBytes(32);
let closing: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of closing) await step();
  closing = [];
});

async function twoNodes(): Promise<[SatchelEngine, SatchelEngine, TestSchema]> {
  const schema = await createTestSchema(url ?? '');
  const data = await tempDir('satchel-nodes-');
  const open = () =>
    openSatchel({
      data,
      stores: { metadata: schema.config },
      webhookKey: KEY,
      webhookAllow: ['127.0.0.1'],
    });
  const a = await open();
  const b = await open();
  closing.push(async () => {
    await Promise.all([a.close(), b.close()]);
    await schema.drop();
  });
  await a.createWorkspace('ws');
  return [a, b, schema];
}

describe.skipIf(url === null)('two engines on one PostgreSQL schema', () => {
  it('a commit on one wakes a long poll on the other at once', async () => {
    const [a, b] = await twoNodes();
    const { seq } = await b.getWorkspace('ws');
    const waiting = b
      .listChanges('ws', { after: seq, waitSeconds: 10 })
      .then((page) => ({ page, at: Date.now() }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await a.writeFile('ws', '/woke.txt', 'x');
    const written = Date.now();
    const { page, at } = await waiting;
    expect(page.events.map((e) => e.path)).toEqual(['/woke.txt']);
    // The cross-process re-check alone takes up to 1 s.
    expect(at - written).toBeLessThan(400);
  });

  it('a lock released on one wakes a waiter on the other at once', async () => {
    const [a, b] = await twoNodes();
    const held = await a.acquireLock('ws', { path: '/l.txt', ttlSeconds: 60 });
    const waiting = b
      .acquireLock('ws', { path: '/l.txt', ttlSeconds: 60, waitSeconds: 10 })
      .then((lock) => ({ lock, at: Date.now() }));
    await new Promise((resolve) => setTimeout(resolve, 150));
    await a.releaseLock('ws', held.id);
    const released = Date.now();
    const { lock, at } = await waiting;
    expect(lock.token).toBeGreaterThan(held.token);
    expect(at - released).toBeLessThan(400);
  });

  it('with both dispatching, every webhook event is delivered exactly once', async () => {
    const [a, b] = await twoNodes();
    const receiver = await startReceiver();
    await a.createWebhook('ws', { url: `${receiver.url}/hook` });
    const options = { retryScheduleMs: [40, 40, 40], pollMs: 50, timeoutMs: 5000, concurrency: 4 };
    const dispatchers = [a.startWebhooks(options), b.startWebhooks(options)];
    for (let i = 0; i < 30; i++) await (i % 2 ? a : b).writeFile('ws', `/f${i % 4}.txt`, `${i}`);
    const { events } = await a.listChanges('ws', { limit: 1000 });
    await eventually(() => receiver.requests.length >= events.length);
    await eventually(async () => (await a.webhookQueueDepth()) === 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await Promise.all(dispatchers.map((d) => d.stop()));
    await receiver.close();
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(events.length);
  });

  it('a node whose webhook key differs from the first node’s refuses to start', async () => {
    const [, , schema] = await twoNodes();
    const data = await tempDir('satchel-nodes-');
    await expect(
      openSatchel({ data, stores: { metadata: schema.config }, webhookKey: randomBytes(32) }),
    ).rejects.toThrow(/SATCHEL_WEBHOOK_KEY to the same value on every node/);
  });
});
