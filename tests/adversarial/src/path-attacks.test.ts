/**
 * Path attacks over REST and MCP: traversal (`..`, percent-encoded and look-alike forms),
 * encoded slashes, NUL, control and bidirectional characters, overlong segments. Each is refused
 * (400 INVALID_PATH over REST, an isError INVALID_PATH result over MCP) or lands on a literal,
 * harmless name inside the workspace — never a file outside it, never a 5xx.
 */
import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { normalizePath } from '@satchel/core';
import { createMcpServer } from '@satchel/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './support.js';

/** Raw workspace paths an attacker sends as a tool argument or a JSON field. */
const RAW_ATTACKS = [
  '../escape.txt',
  '/../escape.txt',
  '/a/../../escape.txt',
  '/a/./b.txt',
  '/./',
  '//double',
  '/a\\..\\..\\escape.txt',
  '/nul\u0000.txt',
  '/bell\u0007.txt',
  '/del\u007f.txt',
  '/c1\u0085.txt',
  '/invoice\u202efdp.exe',
  '/isolate\u2066x',
  '/mark\u200f.txt',
  `/${'a'.repeat(256)}`,
  `/${'é'.repeat(128)}`,
  `${'/a'.repeat(2100)}`,
  '/\uff0e\uff0e/escape.txt',
  '/lone\ud800.txt',
  '',
];

/** URL forms of traversal: decoded by the URL parser, by the router, or not at all. */
const URL_ATTACKS = [
  '../../../escape.txt',
  '%2e%2e/%2e%2e/escape.txt',
  '%2E%2E%2Fescape.txt',
  '..%2f..%2fescape.txt',
  '..%5c..%5cescape.txt',
  'a%2f..%2f..%2fescape.txt',
  '%00.txt',
  'x%0d%0aSet-Cookie:%20a=b',
  '%e2%80%aefdp.exe',
  '%c0%ae%c0%ae/escape.txt',
  `${'%61'.repeat(300)}`,
];

let world: World;
let client: Client;
beforeAll(async () => {
  world = await createWorld();
  const satchel = world.engine.as(await world.engine.authenticate(world.keys.editor ?? ''));
  const server = await createMcpServer(satchel, { workspace: 'demo' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'adversary', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
});
afterAll(async () => {
  await client.close();
  await world.close();
});

/**
 * Every file the workspace holds, and every name under the world's temp root and beside it
 * that an escaped write would have created (content lives in blobs named by hash, so a file
 * named like an attack path anywhere there is an escape).
 */
async function snapshot(): Promise<{ files: string[]; outside: string[] }> {
  const page = await world.engine.list('demo', { recursive: true, limit: 1000 });
  const inside = await readdir(world.root, { recursive: true });
  const beside = await readdir(dirname(world.root));
  return {
    files: page.items.filter((i) => i.type === 'file').map((i) => i.path),
    outside: [...inside, ...beside].filter((n) => /escape|planted|Set-Cookie/.test(n)),
  };
}

/** True when `path` is a name the workspace may legitimately hold. */
function legitimate(path: string): boolean {
  try {
    return normalizePath(path) === path;
  } catch {
    return false;
  }
}

describe('path attacks over REST', () => {
  it('refuses raw attack paths in JSON bodies with 400 INVALID_PATH', async () => {
    for (const path of RAW_ATTACKS) {
      for (const [url, body] of [
        ['/v1/workspaces/demo/mkdir', { path }],
        ['/v1/workspaces/demo/move', { from: '/notes.md', to: path }],
        ['/v1/workspaces/demo/copy', { from: path, to: '/copy.md' }],
        ['/v1/workspaces/demo/batch', { files: [{ path, content: 'x' }] }],
      ] as const) {
        const res = await world.request('POST', url, { key: world.keys.editor, body });
        const problem = (await res.json()) as { code?: string };
        expect(res.status, `${url} ${JSON.stringify(path)}`).toBe(400);
        expect(problem.code, `${url} ${JSON.stringify(path)}`).toBe('INVALID_PATH');
      }
    }
  });

  it('never writes outside the workspace through a URL, and never fails with a 5xx', async () => {
    const before = await snapshot();
    for (const attack of URL_ATTACKS) {
      for (const method of ['PUT', 'GET', 'DELETE', 'HEAD']) {
        const res = await world.request(method, `/v1/workspaces/demo/files/${attack}`, {
          key: world.keys.editor,
          ...(method === 'PUT' ? { body: 'planted' } : {}),
        });
        const text = method === 'HEAD' ? '' : await res.text();
        const where = `${method} ${attack}: ${res.status} ${text.slice(0, 200)}`;
        expect(res.status, where).toBeLessThan(500);
        if (res.status === 400 && method !== 'HEAD') expect(text, where).toContain('INVALID_PATH');
        expect(res.headers.get('Set-Cookie'), where).toBeNull();
      }
    }
    const after = await snapshot();
    expect(after.outside).toEqual(before.outside);
    // Whatever was written is a legitimate name inside the workspace, nothing with `..` in it.
    for (const path of after.files) {
      expect(legitimate(path), path).toBe(true);
      expect(path.split('/')).not.toContain('..');
    }
  });
});

describe('path attacks over MCP', () => {
  it('answers every attack path with an INVALID_PATH tool error and writes nothing', async () => {
    const before = await snapshot();
    for (const path of RAW_ATTACKS) {
      for (const [tool, args] of [
        ['write_file', { path, content: 'planted' }],
        ['read_text_file', { path }],
        ['create_directory', { path }],
        ['get_file_info', { path }],
      ] as const) {
        const result = (await client.callTool({ name: tool, arguments: args })) as {
          isError?: boolean;
          content: Array<{ type: string; text?: string }>;
        };
        const text = result.content.map((c) => c.text ?? '').join('');
        expect(result.isError, `${tool} ${JSON.stringify(path)}: ${text}`).toBe(true);
        expect(text, `${tool} ${JSON.stringify(path)}`).toMatch(/INVALID_PATH|INVALID_INPUT/);
      }
    }
    expect((await snapshot()).files).toEqual(before.files);
  });
});
