/** Webhooks over HTTP: CRUD and its refusals through `app.request()`, delivery from `serve`. */
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CreatedWebhook, openSatchel, type Webhook } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serve } from '../serve.js';
import { createHarness, type Harness, problemOf } from '../test-support/harness.js';

// A public address: accepted without an allow-list; nothing is sent to it (no dispatcher here).
const PUBLIC = 'https://93.184.215.14/hook';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

describe('webhook routes', () => {
  it('creates (secret once), lists, gets, updates, logs and deletes', async () => {
    const res = await h.request('POST', '/v1/workspaces/demo/webhooks', {
      body: { url: PUBLIC, events: ['write'], path: '/out/**', description: 'ci' },
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as CreatedWebhook;
    expect(created).toMatchObject({
      workspace: 'demo',
      url: PUBLIC,
      events: ['write'],
      path: '/out/**',
      enabled: true,
      secret: expect.stringMatching(/^whsec_/),
    });
    const base = `/v1/workspaces/demo/webhooks/${created.id}`;
    const { secret, ...shown } = created;

    const list = await h.request('GET', '/v1/workspaces/demo/webhooks');
    expect(await list.json()).toEqual({ items: [shown], nextCursor: null });
    const one = await h.request('GET', base);
    expect(await one.text()).not.toContain(secret);

    const patched = await h.request('PATCH', base, { body: { enabled: false, path: null } });
    expect(await patched.json()).toMatchObject({
      enabled: false,
      path: null,
      disabledReason: 'disabled by admin',
    });
    const log = await h.request('GET', `${base}/deliveries?limit=10`);
    expect(await log.json()).toEqual({ items: [], nextCursor: null });

    expect((await h.request('DELETE', base)).status).toBe(204);
    expect(await problemOf(await h.request('GET', base))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  it('refuses with one clear problem: role, SSRF, bad bodies, unknown ids', async () => {
    const forbidden = await h.request('POST', '/v1/workspaces/demo/webhooks', {
      key: h.keys.editor,
      body: { url: PUBLIC },
    });
    expect(await problemOf(forbidden)).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      reason: 'role',
    });
    const hidden = await h.request('GET', '/v1/workspaces/demo/webhooks', {
      key: h.keys.stranger,
    });
    expect((await problemOf(hidden)).code).toBe('NOT_FOUND');

    const ssrf = await h.request('POST', '/v1/workspaces/demo/webhooks', {
      body: { url: 'http://169.254.169.254/latest/meta-data' },
    });
    expect(await problemOf(ssrf)).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
      reason: 'ssrf',
      address: '169.254.169.254',
    });
    for (const body of [
      { url: PUBLIC, secret: 'mine' },
      { url: PUBLIC, events: ['nope'] },
      { events: ['write'] },
    ]) {
      const res = await h.request('POST', '/v1/workspaces/demo/webhooks', { body });
      expect(await problemOf(res)).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    }
    const malformed = await h.request('POST', '/v1/workspaces/demo/webhooks', {
      body: '{"url":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect((await problemOf(malformed)).code).toBe('INVALID_INPUT');
    const missing = await h.request('PATCH', '/v1/workspaces/demo/webhooks/wh_0', {
      body: { enabled: true },
    });
    expect(await problemOf(missing)).toMatchObject({ status: 404, webhook: 'wh_0' });
    const badLimit = await h.request('GET', '/v1/workspaces/demo/webhooks/wh_0/deliveries?limit=x');
    expect((await problemOf(badLimit)).code).toBe('INVALID_INPUT');
    const list = await h.request('GET', '/v1/workspaces/demo/webhooks');
    expect(await list.json()).toEqual({ items: [], nextCursor: null });
  });
});

/** The Standard Webhooks signature, computed here independently of the server's library. */
function expectedSignature(secret: string, headers: IncomingHttpHeaders, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`;
  return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
}

describe('serve with webhooks', () => {
  it('delivers signed events while it runs; its queue depth is exposed', async () => {
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
    const data = await mkdtemp(join(tmpdir(), 'satchel-api-hooks-'));
    const engine = await openSatchel({ data, webhookAllow: ['127.0.0.1'] });
    const server = await serve(engine, {
      port: 0,
      api: { logFault: () => undefined },
      webhooks: { pollMs: 50, retryScheduleMs: [20] },
    });
    try {
      const auth = { Authorization: `Bearer ${engine.createdAdminKey}` };
      await engine.createWorkspace('w');
      const res = await fetch(`${server.url}/v1/workspaces/w/webhooks`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: target }),
      });
      const hook = (await res.json()) as CreatedWebhook;
      const put = await fetch(`${server.url}/v1/workspaces/w/files/notes.md`, {
        method: 'PUT',
        headers: auth,
        body: 'hello',
      });
      expect(put.ok).toBe(true);
      for (let i = 0; i < 500 && received.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const [delivery] = received;
      expect(delivery?.headers['webhook-signature']).toBe(
        expectedSignature(hook.secret, delivery?.headers ?? {}, delivery?.body ?? ''),
      );
      expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({
        type: 'file.write',
        data: { workspace: 'w', path: '/notes.md', type: 'write', size: 5 },
      });
      // The attempt is recorded right after the receiver answers.
      let depth = await server.webhooks?.queueDepth();
      for (let i = 0; i < 500 && depth !== 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        depth = await server.webhooks?.queueDepth();
      }
      expect(depth).toBe(0);
      const listed = (await (
        await fetch(`${server.url}/v1/workspaces/w/webhooks`, { headers: auth })
      ).json()) as { items: Webhook[] };
      expect(listed.items.map((w) => w.id)).toEqual([hook.id]);
    } finally {
      await server.close();
      await engine.close();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
      await rm(data, { recursive: true, force: true });
    }
  });
});
