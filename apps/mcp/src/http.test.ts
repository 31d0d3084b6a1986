/** `createMcpHttpHandler` on its own: sessions per key, and the Host check against DNS rebinding. */
import { type SatchelEngine, SatchelError } from '@satchel/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpHttpHandler, type McpHttpHandler } from './http.js';
import { openEngine } from './test-support/client.js';

let handler: McpHttpHandler | undefined;
afterEach(async () => {
  await handler?.close();
  handler = undefined;
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
};

function post(key: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request('http://127.0.0.1:8787/mcp', {
    method: 'POST',
    headers: {
      Host: '127.0.0.1:8787',
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Protocol-Version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** Opens a session as `key`; returns its id. */
async function open(h: McpHttpHandler, engine: SatchelEngine, key: string): Promise<string> {
  const res = await h(post(key, INITIALIZE), engine);
  expect(res.status).toBe(200);
  await res.body?.cancel();
  const id = res.headers.get('Mcp-Session-Id');
  if (id === null) throw new Error('no session id');
  return id;
}

/** The status of a `tools/list` in session `id`, as `key`. */
async function use(h: McpHttpHandler, engine: SatchelEngine, key: string, id: string) {
  const res = await h(
    post(key, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'Mcp-Session-Id': id }),
    engine,
  );
  await res.body?.cancel();
  return res.status;
}

describe('MCP sessions over HTTP', () => {
  it('caps sessions per key by closing that key’s oldest, never another key’s', async () => {
    const engine = await openEngine();
    handler = createMcpHttpHandler({ maxSessions: 10, maxSessionsPerKey: 2 });
    const a1 = await open(handler, engine, 'key-a');
    const b1 = await open(handler, engine, 'key-b');
    const a2 = await open(handler, engine, 'key-a');
    // A third session of key a: its oldest goes, key b's stays.
    const a3 = await open(handler, engine, 'key-a');
    expect(await use(handler, engine, 'key-a', a1)).toBe(404);
    expect(await use(handler, engine, 'key-a', a2)).toBe(200);
    expect(await use(handler, engine, 'key-a', a3)).toBe(200);
    expect(await use(handler, engine, 'key-b', b1)).toBe(200);
    // A session id is refused to any key but the one that opened it, as if unknown.
    expect(await use(handler, engine, 'key-b', a2)).toBe(404);
    expect(handler.sessions).toBe(3);
  });

  it('refuses a new session when the server is full instead of evicting other keys', async () => {
    const engine = await openEngine();
    handler = createMcpHttpHandler({ maxSessions: 3, maxSessionsPerKey: 3 });
    const ids = [];
    for (const key of ['key-a', 'key-a', 'key-a']) ids.push(await open(handler, engine, key));
    const full = await handler(post('key-b', INITIALIZE), engine);
    expect(full.status).toBe(503);
    expect(full.headers.get('Retry-After')).toMatch(/^\d+$/);
    for (const id of ids) expect(await use(handler, engine, 'key-a', id)).toBe(200);
  });
});

describe('the Host check (DNS rebinding)', () => {
  it('accepts loopback names and refuses any other host with 403, also inside a session', async () => {
    const engine = await openEngine();
    handler = createMcpHttpHandler();
    for (const host of ['localhost:8787', '127.0.0.1:8787', '[::1]:8787', 'LOCALHOST:9']) {
      const res = await handler(post('key-a', INITIALIZE, { Host: host }), engine);
      await res.body?.cancel();
      expect(res.status, host).toBe(200);
    }
    const id = await open(handler, engine, 'key-a');
    // A page on attacker.example whose name now resolves to 127.0.0.1.
    for (const host of ['attacker.example:8787', 'attacker.example', '127.0.0.1.nip.io:8787']) {
      const res = await handler(post('key-a', INITIALIZE, { Host: host }), engine);
      expect(res.status, host).toBe(403);
      const inSession = await handler(
        post(
          'key-a',
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
          {
            Host: host,
            'Mcp-Session-Id': id,
          },
        ),
        engine,
      );
      expect(inSession.status, host).toBe(403);
    }
  });

  it('accepts the public names it is configured with', async () => {
    const engine = await openEngine();
    handler = createMcpHttpHandler({ allowedHosts: ['satchel.example.com', 'files.local:9000'] });
    const status = async (host: string) => {
      const res = await handler?.(post('key-a', INITIALIZE, { Host: host }), engine);
      await res?.body?.cancel();
      return res?.status;
    };
    expect(await status('satchel.example.com')).toBe(200);
    expect(await status('satchel.example.com:443')).toBe(200);
    expect(await status('files.local:9000')).toBe(200);
    expect(await status('files.local:9001')).toBe(403);
    expect(await status('localhost:8787')).toBe(200);
    expect(await status('other.example.com')).toBe(403);
  });
});

describe('revocation', () => {
  it('closes a session and ends its GET event stream once its key no longer authenticates', async () => {
    const engine = await openEngine();
    handler = createMcpHttpHandler({ accessRecheckSeconds: 0.2 });
    let revoked = false;
    const reauthenticate = async () => {
      if (revoked) throw new SatchelError('UNAUTHENTICATED', 'the key was revoked');
      return engine;
    };
    const init = await handler(post('key-a', INITIALIZE), engine, reauthenticate);
    await init.body?.cancel();
    const id = init.headers.get('Mcp-Session-Id') ?? '';
    const stream = await handler(
      new Request('http://127.0.0.1:8787/mcp', {
        method: 'GET',
        headers: {
          Host: '127.0.0.1:8787',
          Authorization: 'Bearer key-a',
          Accept: 'text/event-stream',
          'Mcp-Session-Id': id,
          'Mcp-Protocol-Version': '2025-06-18',
        },
      }),
      engine,
      reauthenticate,
    );
    expect(stream.status).toBe(200);
    const reader = stream.body?.getReader();
    revoked = true;
    const ended = await Promise.race([
      (async () => {
        for (;;) if ((await reader?.read())?.done !== false) return 'ended';
      })(),
      new Promise((r) => setTimeout(() => r('still open'), 3000)),
    ]);
    expect(ended).toBe('ended');
    expect(handler.sessions).toBe(0);
    expect(await use(handler, engine, 'key-a', id)).toBe(404);
  });
});
