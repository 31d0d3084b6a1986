/** `satchel mcp` as a real process: the built binary over stdio with the SDK's StdioClientTransport. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openSatchel } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliMain } from './cli.js';

let data: string;
let client: Client | undefined;
beforeEach(async () => {
  data = await mkdtemp(join(tmpdir(), 'satchel-mcp-stdio-'));
  const engine = await openSatchel({ data });
  await engine.createWorkspace('notes');
  await engine.close();
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  await rm(data, { recursive: true, force: true });
});

async function start(args: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliMain(), 'mcp', '--data', data, ...args],
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('satchel mcp over stdio', () => {
  it('serves the tools on the data directory with the default workspace', async () => {
    const { client } = await start(['-w', 'notes']);
    expect(client.getServerVersion()?.name).toBe('satchel');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('write_file');

    const written = await client.callTool({
      name: 'write_file',
      arguments: { path: '/hello.md', content: 'hello\nworld\n' },
    });
    expect(written.isError).toBeFalsy();
    const read = await client.callTool({
      name: 'read_text_file',
      arguments: { path: '/hello.md', tail: 1 },
    });
    expect(read.structuredContent).toMatchObject({ text: 'world\n', lineStart: 2 });
    const missing = await client.callTool({
      name: 'read_text_file',
      arguments: { path: '/nope.md' },
    });
    expect(missing.isError).toBe(true);
    expect(missing._meta?.['satchel/error']).toMatchObject({ code: 'NOT_FOUND' });
    await client.close();

    const engine = await openSatchel({ data });
    try {
      expect((await engine.readText('notes', '/hello.md')).text).toBe('hello\nworld\n');
      const [version] = (await engine.listVersions('notes', '/hello.md')).items;
      expect(version?.author).toBe('admin');
    } finally {
      await engine.close();
    }
  });

  it('--read-only lists no write tool and keeps stdout for protocol only', async () => {
    const { client, stderr } = await start(['--read-only']);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('read_text_file');
    expect(names).not.toContain('write_file');
    expect(names).not.toContain('lock_file');
    // The only workspace is the default.
    const listing = await client.callTool({ name: 'list_directory', arguments: {} });
    expect(listing.structuredContent).toMatchObject({ path: '/', total: 0 });
    // The admin key exists already (created by the first open), so nothing is noted.
    expect(stderr()).toBe('');
    expect((await readFile(join(data, 'admin.key'), 'utf8')).length).toBeGreaterThan(10);
  });
});
