/**
 * Webhook delivery end to end: a real engine on a temp data directory, a real receiver on
 * 127.0.0.1, signatures checked with the `standardwebhooks` package itself.
 */
import { join } from 'node:path';
import type { WebhookPayload } from '@satchel/client/schemas/index.js';
import { Webhook as Verifier } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { openSatchel } from '../engine/open.js';
import type { SatchelEngine } from '../engine/satchel-engine.js';
import { tempDir } from '../test-support/temp.js';
import { eventually, type Received, startReceiver } from '../test-support/webhook-receiver.js';
import type { WebhookDispatcher, WebhookDispatchOptions } from './dispatcher.js';

const ALLOW = ['127.0.0.1'];
/** A compressed schedule: six retries a few tens of milliseconds apart. */
const FAST: WebhookDispatchOptions = {
  retryScheduleMs: [40, 40, 40, 40, 40, 40],
  jitter: 0.2,
  pollMs: 50,
  timeoutMs: 5000,
};

async function open(data: string): Promise<SatchelEngine> {
  const engine = await openSatchel({ data, webhookAllow: ALLOW });
  if (engine.createdAdminKey !== null) await engine.createWorkspace('ws');
  return engine;
}

function payloadOf(request: Received): WebhookPayload {
  return JSON.parse(request.body) as WebhookPayload;
}

function verify(secret: string, request: Received): unknown {
  return new Verifier(secret).verify(request.body, request.headers as Record<string, string>);
}

describe('webhook delivery', () => {
  it('retries failures across a restart: every event delivered once, in order per file, signed', async () => {
    const data = join(await tempDir(), 'data');
    let dispatcher: WebhookDispatcher | undefined;
    let stopping: Promise<void> | undefined;
    // Fails the first three requests, whichever they are, then accepts everything. The server
    // is stopped as the 2nd failure is answered: that attempt is recorded, no other starts.
    const receiver = await startReceiver((n) => {
      if (n === 1) stopping = dispatcher?.stop();
      return n < 3 ? 500 : 200;
    });
    let engine = await open(data);
    const hook = await engine.createWebhook('ws', { url: `${receiver.url}/hook` });
    dispatcher = engine.startWebhooks({ ...FAST, concurrency: 1 });
    for (const [path, text] of [
      ['/a.txt', 'a1'],
      ['/b.txt', 'b1'],
      ['/a.txt', 'a2'],
      ['/c/d.txt', 'd1'],
      ['/a.txt', 'a3'],
    ] as const) {
      await engine.writeFile('ws', path, text);
    }
    await (await eventually(() => stopping && { stopping })).stopping;
    await engine.close();
    expect(receiver.requests.map((r) => r.status)).toEqual([500, 500]);

    engine = await open(data);
    // Every event of the change feed (the write to /c/d.txt also made the directory /c).
    const { events } = await engine.listChanges('ws');
    expect(events).toHaveLength(6);
    dispatcher = engine.startWebhooks({ ...FAST, concurrency: 4 });
    await eventually(() => receiver.requests.filter((r) => r.status === 200).length >= 6);
    await eventually(async () => (await dispatcher.queueDepth()) === 0);
    await dispatcher.stop();

    const acked = receiver.requests.filter((r) => r.status === 200).map(payloadOf);
    expect(acked.map((p) => `${p.data.seq} ${p.data.path}`).sort()).toEqual(
      events.map((e) => `${e.seq} ${e.path}`).sort(),
    );
    const seqsOfA = acked.filter((p) => p.data.path === '/a.txt').map((p) => p.data.seq);
    expect(seqsOfA).toEqual([...seqsOfA].sort((x, y) => x - y));
    for (const event of events) {
      const payload = acked.find((p) => p.data.seq === event.seq && p.data.path === event.path);
      expect(payload).toEqual({
        type: `file.${event.type}`,
        timestamp: event.time,
        data: { workspace: 'ws', ...event },
      });
    }

    // One webhook-id per event, the same on every retry, with the same body each time.
    const byId = new Map<string, Received[]>();
    for (const request of receiver.requests) {
      const id = String(request.headers['webhook-id']);
      byId.set(id, [...(byId.get(id) ?? []), request]);
      expect(verify(hook.secret, request)).toEqual(JSON.parse(request.body));
      expect(request.headers['user-agent']).toBe('Satchel-Webhooks/0.1');
      expect(request.headers['content-type']).toBe('application/json');
    }
    expect(byId.size).toBe(6);
    for (const requests of byId.values()) {
      expect(new Set(requests.map((r) => r.body)).size).toBe(1);
      expect(requests.filter((r) => r.status === 200)).toHaveLength(1);
      expect(requests.at(-1)?.status).toBe(200);
    }

    const log = await engine.listWebhookDeliveries('ws', hook.id);
    expect(log.items).toHaveLength(6);
    expect(log.items.every((d) => d.status === 'delivered' && d.deliveredAt !== null)).toBe(true);
    expect(log.items.reduce((sum, d) => sum + d.attempts, 0)).toBe(receiver.requests.length);
    const retried = log.items.filter((d) => d.attempts > 1);
    expect(retried.length).toBeGreaterThan(0);
    for (const delivery of log.items) {
      expect(delivery.log).toHaveLength(delivery.attempts);
      expect(delivery.log.at(-1)).toMatchObject({ status: 200, error: null });
      expect(byId.get(delivery.id)).toHaveLength(delivery.attempts);
    }
    expect(retried[0]?.log[0]).toMatchObject({ status: 500, error: 'HTTP 500: nope 500' });
    // Newest first, two to a page.
    const first = await engine.listWebhookDeliveries('ws', hook.id, { limit: 2 });
    const second = await engine.listWebhookDeliveries('ws', hook.id, {
      limit: 2,
      cursor: first.nextCursor ?? '',
    });
    expect([...first.items, ...second.items].map((d) => d.id)).toEqual(
      log.items.slice(0, 4).map((d) => d.id),
    );
    expect(log.items.map((d) => `${d.eventSeq} ${d.path}`)).toEqual(
      events.map((e) => `${e.seq} ${e.path}`).reverse(),
    );
    await engine.close();
  });

  it('a 410 disables the webhook; its later events are not sent', async () => {
    const data = join(await tempDir(), 'data');
    const gone = await startReceiver(() => 410);
    const other = await startReceiver();
    const engine = await open(data);
    try {
      const hook = await engine.createWebhook('ws', { url: `${gone.url}/gone` });
      const witness = await engine.createWebhook('ws', { url: `${other.url}/ok` });
      const dispatcher = engine.startWebhooks(FAST);
      await engine.writeFile('ws', '/one.txt', '1');
      const disabled = await eventually(async () => {
        const state = await engine.getWebhook('ws', hook.id);
        return state.enabled ? undefined : state;
      });
      expect(disabled.disabledReason).toMatch(/^the endpoint answered 410 Gone at /);
      const [first] = (await engine.listWebhookDeliveries('ws', hook.id)).items;
      expect(first).toMatchObject({ status: 'dead', attempts: 1, lastStatus: 410 });

      const later = await engine.writeFile('ws', '/two.txt', '2');
      // The witness got the later event, so the dispatcher has read it for every subscription.
      await eventually(() => other.requests.some((r) => payloadOf(r).data.seq === later.seq));
      expect(gone.requests).toHaveLength(1);
      expect((await engine.listWebhookDeliveries('ws', hook.id)).items).toHaveLength(1);

      // Re-enabling resumes from now on.
      await engine.updateWebhook('ws', hook.id, { enabled: true });
      const third = await engine.writeFile('ws', '/three.txt', '3');
      await eventually(() => gone.requests.length === 2);
      expect(payloadOf(gone.requests[1] as Received).data.seq).toBe(third.seq);
      await dispatcher.stop();
      expect((await engine.listWebhookDeliveries('ws', witness.id)).items).toHaveLength(3);
    } finally {
      await engine.close();
    }
  });

  it('sends only the subscribed event types beneath the path glob', async () => {
    const data = join(await tempDir(), 'data');
    const filtered = await startReceiver();
    const everything = await startReceiver();
    const engine = await open(data);
    try {
      await engine.createWebhook('ws', {
        url: filtered.url,
        events: ['delete', 'move'],
        path: '/reports/**',
      });
      await engine.createWebhook('ws', { url: everything.url });
      const dispatcher = engine.startWebhooks(FAST);
      await engine.writeFile('ws', '/reports/q1.md', 'q1');
      await engine.writeFile('ws', '/notes/n.md', 'n');
      await engine.remove('ws', '/notes/n.md');
      await engine.remove('ws', '/reports/q1.md');
      await engine.writeFile('ws', '/reports/deep/q2.md', 'q2');
      const moved = await engine.move('ws', '/reports/deep/q2.md', '/reports/q2.md');
      // Once the catch-all got the last change, every subscription has queued it: drain.
      await eventually(() => everything.requests.some((r) => payloadOf(r).data.seq === moved.seq));
      await eventually(async () => (await dispatcher.queueDepth()) === 0);
      const all = everything.requests.map((r) => payloadOf(r).data);
      await dispatcher.stop();
      const got = filtered.requests.map((r) => payloadOf(r));
      const expected = all.filter(
        (e) => (e.type === 'delete' || e.type === 'move') && e.path.startsWith('/reports/'),
      );
      expect(got.map((p) => `${p.type} ${p.data.path}`).sort()).toEqual(
        expected.map((e) => `file.${e.type} ${e.path}`).sort(),
      );
      expect(got.map((p) => p.data.path)).toContain('/reports/q1.md');
      expect(got.map((p) => p.data.path)).not.toContain('/notes/n.md');
    } finally {
      await engine.close();
    }
  });

  it('checks the address again at delivery: an attempt to a refused address fails clearly', async () => {
    const data = join(await tempDir(), 'data');
    const receiver = await startReceiver();
    let engine = await open(data);
    const hook = await engine.createWebhook('ws', { url: receiver.url });
    await engine.close();
    // Reopened without the allow-list: 127.0.0.1 is no longer acceptable.
    engine = await openSatchel({ data });
    try {
      const dispatcher = engine.startWebhooks({ ...FAST, retryScheduleMs: [10] });
      await engine.writeFile('ws', '/x.txt', 'x');
      const dead = await eventually(async () => {
        const [delivery] = (await engine.listWebhookDeliveries('ws', hook.id)).items;
        return delivery?.status === 'dead' ? delivery : undefined;
      });
      await dispatcher.stop();
      expect(dead.attempts).toBe(2);
      expect(dead.lastStatus).toBeNull();
      expect(dead.lastError).toBe('refused by the SSRF guard: 127.0.0.1 is a loopback address');
      expect(receiver.requests).toEqual([]);
    } finally {
      await engine.close();
    }
  });

  it('refuses a second dispatcher on one engine and bad options', async () => {
    const engine = await openSatchel({ data: ':memory:' });
    try {
      expect(() => engine.startWebhooks({ jitter: 2 })).toThrow(/jitter/);
      const dispatcher = engine.startWebhooks();
      expect(() => engine.startWebhooks()).toThrow(/already runs/);
      expect(await dispatcher.queueDepth()).toBe(0);
      expect(await engine.webhookQueueDepth()).toBe(0);
    } finally {
      // close() stops the running dispatcher first.
      await engine.close();
    }
  });

  it('two engines on one database dispatching: every event is delivered exactly once', async () => {
    const data = join(await tempDir(), 'data');
    const receiver = await startReceiver();
    const a = await open(data);
    const b = await open(data);
    await a.createWebhook('ws', { url: `${receiver.url}/hook` });
    const dispatchers = [a, b].map((engine) => engine.startWebhooks({ ...FAST, concurrency: 4 }));
    for (let i = 0; i < 40; i++) await (i % 2 ? a : b).writeFile('ws', `/f${i % 7}.txt`, `${i}`);
    const { events } = await a.listChanges('ws', { limit: 1000 });
    await eventually(() => receiver.requests.length >= events.length);
    await eventually(async () => (await dispatchers[0]?.queueDepth()) === 0);
    // Time for a duplicate to arrive, were one on its way.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await Promise.all(dispatchers.map((d) => d.stop()));
    await Promise.all([a.close(), b.close()]);
    await receiver.close();
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(receiver.requests.map((r) => payloadOf(r).data.seq).sort((x, y) => x - y)).toEqual(
      events.map((e) => e.seq),
    );
  });
});
