/**
 * Two `satchel serve` processes on one PostgreSQL database, requests alternating between them:
 * the guarantees of one node hold across both.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminKey,
  client,
  dataDir,
  freshSchema,
  type Node,
  postgresUrl,
  startNode,
  until,
} from './support.js';

const base = await postgresUrl();

describe.skipIf(base === null)('two nodes, one database', () => {
  let cleanup: (() => Promise<void>)[] = [];
  let a: Node;
  let b: Node;
  let nodes: [string, string];
  let admin: ReturnType<typeof client>;
  let key = '';

  beforeAll(async () => {
    const schema = await freshSchema(base ?? '');
    const data = await dataDir();
    cleanup = [data.cleanup, schema.drop];
    // One after the other: the first creates the schema and the admin key.
    a = await startNode(data.path, schema.url());
    b = await startNode(data.path, schema.url());
    cleanup.unshift(
      () => a.stop(),
      () => b.stop(),
    );
    nodes = [a.url, b.url];
    key = await adminKey(data.path);
    admin = client(key);
    const created = await admin(a.url, '/v1/workspaces', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'ws' }),
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    for (const step of cleanup) await step().catch(() => undefined);
  });

  it('32 workers increment with If-Match over both nodes: the count is the successes, the rest 412', async () => {
    await admin(a.url, '/v1/workspaces/ws/files/if-match.txt', { method: 'PUT', body: '0' });
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 32 }, async (_, worker) => {
        for (let round = 0; round < 8; round++) {
          const read = await admin(
            nodes[(worker + round) % 2] ?? '',
            '/v1/workspaces/ws/files/if-match.txt',
          );
          const value = Number(await read.text());
          const etag = read.headers.get('ETag') ?? '';
          const write = await admin(
            nodes[(worker + round + 1) % 2] ?? '',
            '/v1/workspaces/ws/files/if-match.txt',
            {
              method: 'PUT',
              // Each worker its own session: a lost race is 412, never taken for its own retry
              // (docs/api.md, retrying a conditional write).
              headers: { 'If-Match': etag, 'Satchel-Session': `worker-${worker}` },
              body: String(value + 1),
            },
          );
          await write.arrayBuffer();
          statuses.push(write.status);
        }
      }),
    );
    const successes = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 412)).toEqual([]);
    expect(successes).toBeGreaterThan(0);
    const final = await admin(b.url, '/v1/workspaces/ws/files/if-match.txt');
    expect(Number(await final.text())).toBe(successes);
  });

  it('a write on one node wakes a long poll, an SSE stream and an MCP subscription on the other within 1 s', async () => {
    const head = Number(
      (await admin(b.url, '/v1/workspaces/ws')).headers.get('ETag')?.replaceAll('"', ''),
    );
    expect(head).toBeGreaterThan(0);
    // Long poll on B.
    const poll = admin(b.url, `/v1/workspaces/ws/changes?after=${head}&wait=20`).then(
      async (r) => ({
        at: Date.now(),
        body: (await r.json()) as { events: { path: string }[] },
      }),
    );
    // SSE on B.
    const sse = await admin(b.url, `/v1/workspaces/ws/changes?after=${head}`, {
      headers: { Accept: 'text/event-stream' },
    });
    const reader = sse.body?.getReader();
    const sseSeen = (async () => {
      let text = '';
      const decoder = new TextDecoder();
      while (!text.includes('/woken.txt')) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) throw new Error('SSE ended');
        text += decoder.decode(chunk.value);
      }
      return Date.now();
    })();
    // MCP subscription on B.
    const transport = new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    const mcp = new Client({ name: 'cluster-test', version: '1.0.0' });
    await mcp.connect(transport);
    let mcpAt = 0;
    mcp.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      if (n.params.uri === 'satchel://ws/woken.txt') mcpAt = Date.now();
    });
    await mcp.subscribeResource({ uri: 'satchel://ws/woken.txt' });
    // Let every waiter settle into its wait before the write.
    await new Promise((resolve) => setTimeout(resolve, 300));

    const written = await admin(a.url, '/v1/workspaces/ws/files/woken.txt', {
      method: 'PUT',
      body: 'hi',
    });
    expect(written.status).toBe(200);
    const at = Date.now();
    const polled = await poll;
    expect(polled.body.events.map((e) => e.path)).toContain('/woken.txt');
    expect(polled.at - at).toBeLessThan(1000);
    expect((await sseSeen) - at).toBeLessThan(1000);
    await until(() => mcpAt > 0, 3000);
    expect(mcpAt - at).toBeLessThan(1000);
    await reader?.cancel();
    await mcp.close();
  });

  it('with both nodes dispatching, a webhook receiver gets every event exactly once', async () => {
    const received: { id: string; seq: number }[] = [];
    const receiver = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const payload = JSON.parse(body) as { data: { seq: number } };
        received.push({ id: String(req.headers['webhook-id']), seq: payload.data.seq });
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as { port: number };
    await admin(a.url, '/v1/workspaces', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'hooked' }),
    });
    const hook = await admin(a.url, '/v1/workspaces/hooked/webhooks', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook` }),
    });
    expect(hook.status).toBe(201);
    for (let i = 0; i < 30; i++) {
      const r = await admin(nodes[i % 2] ?? '', `/v1/workspaces/hooked/files/f${i % 5}.txt`, {
        method: 'PUT',
        body: String(i),
      });
      expect(r.status).toBe(200);
    }
    const changes = (await (
      await admin(b.url, '/v1/workspaces/hooked/changes?limit=1000')
    ).json()) as {
      events: { seq: number }[];
    };
    await until(() => received.length >= changes.events.length, 20_000);
    // Time for a duplicate to arrive, were one on its way.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    receiver.close();
    expect(new Set(received.map((r) => r.id)).size).toBe(received.length);
    expect(received.map((r) => r.seq).sort((x, y) => x - y)).toEqual(
      changes.events.map((e) => e.seq),
    );
  });

  // The other node has just authenticated the key, so it remembers it (2 s, auth/key-cache.ts):
  // refusing within 1 s takes the revocation's signal, not the cache window running out.
  it('a key revoked on one node is refused by the other within 1 s, although it remembered the key', async () => {
    const made = await admin(a.url, '/v1/keys', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ label: 'revoke-me' }),
    });
    const minted = (await made.json()) as { key: string; info: { id: string } };
    const agent = client(minted.key);
    expect((await agent(b.url, '/v1/whoami')).status).toBe(200);
    expect((await admin(a.url, `/v1/keys/${minted.info.id}`, { method: 'DELETE' })).status).toBe(
      200,
    );
    const revokedAt = Date.now();
    await until(async () => (await agent(b.url, '/v1/whoami')).status === 401, 1000);
    expect(Date.now() - revokedAt).toBeLessThan(1000);
  });

  it('a resumable upload takes its parts and its completion on either node', async () => {
    const content = Buffer.alloc(3 * 1024 * 1024, 7);
    const created = await admin(a.url, '/v1/workspaces/ws/uploads', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ path: '/across.bin', size: content.length }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const third = content.length / 3;
    for (let i = 0; i < 3; i++) {
      const node = nodes[i % 2] ?? '';
      const head = await admin(node, `/v1/workspaces/ws/uploads/${id}`, { method: 'HEAD' });
      expect(head.headers.get('Upload-Offset')).toBe(String(i * third));
      const part = await admin(node, `/v1/workspaces/ws/uploads/${id}`, {
        method: 'PATCH',
        headers: { 'Upload-Offset': String(i * third) },
        body: content.subarray(i * third, (i + 1) * third),
      });
      expect(part.status).toBe(200);
    }
    const done = await admin(b.url, `/v1/workspaces/ws/uploads/${id}/complete`, { method: 'POST' });
    expect(done.status).toBe(200);
    const read = await admin(a.url, '/v1/workspaces/ws/files/across.bin');
    expect(Buffer.compare(Buffer.from(await read.arrayBuffer()), content)).toBe(0);
  });

  it('a signed upload URL made on one node works once, on any node', async () => {
    const signed = await admin(a.url, '/v1/workspaces/ws/files/signed.txt?upload-url', {
      method: 'POST',
    });
    expect(signed.status).toBe(201);
    const { url } = (await signed.json()) as { url: string };
    const token = url.split('/signed/')[1] ?? '';
    const first = await fetch(`${b.url}/signed/${token}`, { method: 'PUT', body: 'once' });
    expect(first.status).toBe(200);
    const again = await fetch(`${a.url}/signed/${token}`, { method: 'PUT', body: 'twice' });
    expect(again.status).toBe(401);
    expect(await (await admin(a.url, '/v1/workspaces/ws/files/signed.txt')).text()).toBe('once');
  });
});
