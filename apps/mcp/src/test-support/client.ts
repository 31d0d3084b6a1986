/** Test support: a real engine on a temp directory and a real SDK Client linked to the server. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openSatchel, type Satchel, type SatchelEngine } from '@satchel/core';
import { afterEach } from 'vitest';
import { createMcpServer, type McpServerOptions } from '../server.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** An engine on a fresh data directory with workspace `ws`, closed after the test. */
export async function openEngine(): Promise<SatchelEngine> {
  const dir = await mkdtemp(join(tmpdir(), 'satchel-mcp-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const engine = await openSatchel({ data: join(dir, 'data') });
  cleanups.push(() => engine.close());
  await engine.createWorkspace('ws');
  return engine;
}

/** A Client connected over InMemoryTransport to `createMcpServer(satchel, options)`. */
export async function connect(satchel: Satchel, options: McpServerOptions = {}): Promise<Client> {
  const server = await createMcpServer(satchel, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  // Listing the tools makes the client check every result against its tool's output schema.
  await client.listTools();
  cleanups.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

export type ToolResult = CallToolResult & { structuredContent?: Record<string, unknown> };

/** Calls a tool and returns its result (isError results included). */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** Calls a tool that must succeed and returns its structured content. */
export async function ok<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return result.structuredContent as T;
}

/** The error a failed tool call carries in `_meta` (code, message, hint, data), or undefined. */
export function errorOf(result: ToolResult): Record<string, unknown> | undefined {
  return result._meta?.['satchel/error'] as Record<string, unknown> | undefined;
}

export function textOf(result: ToolResult): string {
  return result.content
    .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
    .join('\n');
}
