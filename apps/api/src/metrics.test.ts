/** /metrics: requests by route pattern, exact body bytes of streamed transfers, admin only. */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, serve } from './serve.js';
import { createHarness, type Harness, problemOf } from './test-support/harness.js';

let h: Harness | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await h?.close();
  h = undefined;
});

/** The value of the sample `name{labels}` in a text exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const have = (match[2] ?? '').split(',');
    if (wanted.every((w) => have.includes(w)) && have.length === wanted.length) {
      return Number(match[3]);
    }
  }
  return undefined;
}

/** A request body that arrives in `pieces` chunks, as a streamed upload does. */
function chunked(bytes: Uint8Array, pieces: number): ReadableStream<Uint8Array> {
  const size = Math.ceil(bytes.byteLength / pieces);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + size));
      offset += size;
    },
  });
}

const FILES = '/v1/workspaces/:ws/files/*';

describe('/metrics', () => {
  it('counts requests by method, route pattern and status, never by raw URL', async () => {
    h = await createHarness();
    await h.request('GET', '/v1/workspaces/demo');
    await h.request('GET', '/v1/workspaces/demo');
    await h.request('GET', '/v1/workspaces/nope');
    await h.request('PUT', '/v1/workspaces/demo/files/a/b.txt', { body: 'hello' });
    await h.request('GET', '/v1/no/such/route/12345');
    await h.request('GET', '/v1/workspaces', { key: null });
    const res = await h.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const count = (method: string, route: string, status: string) =>
      sample(text, 'satchel_http_requests_total', { method, route, status });
    expect(count('GET', '/v1/workspaces/:ws', '200')).toBe(2);
    expect(count('GET', '/v1/workspaces/:ws', '404')).toBe(1);
    expect(count('PUT', FILES, '200')).toBe(1);
    expect(count('GET', 'unmatched', '404')).toBe(1);
    // Refused before the route ran, still labelled with the route it was for.
    expect(count('GET', '/v1/workspaces', '401')).toBe(1);
    expect(text).not.toContain('a/b.txt');
    expect(text).not.toContain('12345');
    expect(
      sample(text, 'satchel_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/v1/workspaces/:ws',
      }),
    ).toBe(3);
    // Node's default process metrics are there too.
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('counts the exact body bytes of a streamed upload and download', async () => {
    h = await createHarness();
    server = await serve(h.engine, { port: 0 });
    const auth = { Authorization: `Bearer ${h.keys.admin}` };
    const content = randomBytes(300_000 + 17);
    const put = await fetch(`${server.url}/v1/workspaces/demo/files/big.bin`, {
      method: 'PUT',
      headers: auth,
      body: chunked(content, 9),
      duplex: 'half',
    } as RequestInit);
    expect(put.status).toBe(200);
    const putBody = await put.text();
    const get = await fetch(`${server.url}/v1/workspaces/demo/files/big.bin`, { headers: auth });
    const downloaded = new Uint8Array(await get.arrayBuffer());
    expect(downloaded.byteLength).toBe(content.byteLength);

    // A download is counted when the server has flushed its last byte, which can be just after
    // the client has read it: read the metrics once the GET is in them.
    let text = '';
    for (let tries = 0; tries < 100; tries++) {
      text = await (await fetch(`${server.url}/metrics`, { headers: auth })).text();
      if (sample(text, 'satchel_http_response_bytes_total', { method: 'GET', route: FILES })) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const bytes = (name: string, method: string) => sample(text, name, { method, route: FILES });
    expect(bytes('satchel_http_request_bytes_total', 'PUT')).toBe(content.byteLength);
    expect(bytes('satchel_http_response_bytes_total', 'PUT')).toBe(Buffer.byteLength(putBody));
    expect(bytes('satchel_http_request_bytes_total', 'GET')).toBe(0);
    expect(bytes('satchel_http_response_bytes_total', 'GET')).toBe(content.byteLength);
  });

  it('records lock waits by outcome', async () => {
    h = await createHarness();
    const body = { path: '/x.txt' };
    expect((await h.request('POST', '/v1/workspaces/demo/locks', { body })).status).toBe(201);
    const held = await h.request('POST', '/v1/workspaces/demo/locks', {
      key: h.keys.editor,
      body,
    });
    expect(held.status).toBe(423);
    const text = await (await h.request('GET', '/metrics')).text();
    expect(sample(text, 'satchel_lock_wait_seconds_count', { outcome: 'acquired' })).toBe(1);
    expect(sample(text, 'satchel_lock_wait_seconds_count', { outcome: 'locked' })).toBe(1);
  });

  it('shows the webhook queue depth only when the app is given its source', async () => {
    h = await createHarness();
    expect(await (await h.request('GET', '/metrics')).text()).not.toContain('webhook');
    await h.close();
    h = await createHarness({ webhookQueueDepth: async () => 7 });
    const text = await (await h.request('GET', '/metrics')).text();
    expect(text).toMatch(/^satchel_webhook_queue_depth 7$/m);
  });

  it('is for admins: 401 without a key, 403 for other keys', async () => {
    h = await createHarness();
    const anonymous = await h.request('GET', '/metrics', { key: null });
    expect(anonymous.status).toBe(401);
    expect(await problemOf(anonymous)).toMatchObject({ code: 'UNAUTHENTICATED' });
    const editor = await h.request('GET', '/metrics', { key: h.keys.editor });
    expect(editor.status).toBe(403);
    expect(await problemOf(editor)).toMatchObject({ code: 'FORBIDDEN' });
  });
});
