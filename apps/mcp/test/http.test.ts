/**
 * MCP over Streamable HTTP at /mcp of a real `satchel serve` process: the SDK client with a
 * bearer key, subscriptions fed by REST writes, auth failures, foreign origins, read-only keys.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, startServe } from './serve.js';

let data: string;
let served: Served;
let url: string;
let adminKey: string;

beforeAll(async () => {
  data = await mkdtemp(join(tmpdir(), 'satchel-mcp-http-'));
  served = await startServe(data);
  url = served.url;
  adminKey = served.adminKey;
  const created = await rest('POST', '/v1/workspaces', { name: 'demo' });
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await served?.close();
  await rm(data, { recursive: true, force: true });
});

function rest(method: string, path: string, body?: unknown, key = adminKey): Promise<Response> {
  return served.rest(method, path, body, key);
}

function connect(key: string): Promise<Client> {
  return served.connectHttp(key, 'http-test');
}

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

describe('MCP at /mcp of satchel serve', () => {
  it('serves a session with the bearer key, and notifies subscribers of REST writes', async () => {
    const client = await connect(adminKey);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('write_file');

    const written = await client.callTool({
      name: 'write_file',
      arguments: { workspace: 'demo', path: '/watched.md', content: 'v1' },
    });
    expect(written.isError).toBeFalsy();

    const updates: string[] = [];
    const arrived = new Promise<void>((resolve) => {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updates.push(n.params.uri);
        resolve();
      });
    });
    await client.subscribeResource({ uri: 'satchel://demo/watched.md' });
    const put = await rest('PUT', '/v1/workspaces/demo/files/watched.md', 'v2 over REST');
    expect(put.status).toBeLessThan(300);
    await arrived;
    expect(updates).toEqual(['satchel://demo/watched.md']);
    const read = await client.readResource({ uri: 'satchel://demo/watched.md' });
    expect(read.contents[0]).toMatchObject({ text: 'v2 over REST' });
  });

  it('answers 401 with WWW-Authenticate without a key, and for an unknown key', async () => {
    const attempts: Record<string, string>[] = [{}, { Authorization: 'Bearer sk_not_a_key' }];
    for (const headers of attempts) {
      const res = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(INITIALIZE),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer/);
    }
  });

  it('refuses a foreign Origin with 403 (DNS rebinding) and accepts a loopback one', async () => {
    const post = (origin: string) =>
      fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${adminKey}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Origin: origin,
        },
        body: JSON.stringify(INITIALIZE),
      });
    const foreign = await post('http://evil.example');
    expect(foreign.status).toBe(403);
    const local = await post('http://localhost:3000');
    expect(local.status).toBe(200);
    expect(local.headers.get('Mcp-Session-Id')).toMatch(/\S/);
    await local.body?.cancel();
  });

  it('a session belongs to its key; a read-only key lists no write tools', async () => {
    const key = await rest('POST', '/v1/keys', { readOnly: true, label: 'reader' });
    expect(key.status).toBe(201);
    const { key: readOnlyKey } = (await key.json()) as { key: string };
    const reader = await connect(readOnlyKey);
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).toContain('read_text_file');
    expect(names).not.toContain('write_file');
    expect(names).not.toContain('create_workspace');

    const admin = await connect(adminKey);
    const sessionId = (admin.transport as StreamableHTTPClientTransport).sessionId ?? '';
    const hijack = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${readOnlyKey}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': sessionId,
        'Mcp-Protocol-Version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
  });
});
