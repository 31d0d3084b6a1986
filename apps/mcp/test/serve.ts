/**
 * Test support: a real `satchel serve` process on 127.0.0.1 (the built CLI) and MCP clients that
 * reach it the two ways an agent does — `satchel mcp` over stdio pointed at the server with
 * SATCHEL_URL/SATCHEL_TOKEN, and Streamable HTTP at /mcp with a bearer key.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cliMain } from './cli.js';

export interface Served {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The admin key `satchel serve` created in the data directory. */
  readonly adminKey: string;
  /** A REST call with `key` (the admin's by default); JSON bodies are serialised. */
  rest(method: string, path: string, body?: unknown, key?: string): Promise<Response>;
  /** Stops the server and every client connected through `connectStdio`/`connectHttp`. */
  close(): Promise<void>;
  /** `satchel mcp` over stdio, acting as `key` on this server. */
  connectStdio(key: string, clientName: string): Promise<Client>;
  /** MCP over Streamable HTTP at /mcp, acting as `key`. */
  connectHttp(key: string, clientName: string): Promise<Client>;
}

const ENV = { PATH: process.env.PATH ?? '', NO_COLOR: '1' };

/** Starts `satchel serve --port 0` on `data` and resolves once it listens. */
export async function startServe(data: string): Promise<Served> {
  const server: ChildProcess = spawn(
    process.execPath,
    [cliMain(), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', data],
    { env: ENV },
  );
  let stdout = '';
  const url = await new Promise<string>((resolve, reject) => {
    server.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    server.once('exit', (code) => reject(new Error(`satchel serve exited with ${code}`)));
  });
  const adminKey = (await readFile(join(data, 'admin.key'), 'utf8')).trim();
  const clients: Client[] = [];

  const rest: Served['rest'] = (method, path, body, key = adminKey) =>
    fetch(`${url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });

  async function connected(client: Client, transport: Parameters<Client['connect']>[0]) {
    await client.connect(transport);
    clients.push(client);
    // Listing the tools makes the client check every result against its tool's output schema.
    await client.listTools();
    return client;
  }

  return {
    url,
    adminKey,
    rest,
    connectStdio(key, clientName) {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cliMain(), 'mcp'],
        env: { ...ENV, SATCHEL_URL: url, SATCHEL_TOKEN: key },
        stderr: 'ignore',
      });
      return connected(new Client({ name: clientName, version: '1.0.0' }), transport);
    },
    connectHttp(key, clientName) {
      const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      });
      return connected(new Client({ name: clientName, version: '1.0.0' }), transport);
    },
    async close() {
      for (const client of clients) await client.close().catch(() => undefined);
      if (server.exitCode === null) {
        server.kill('SIGTERM');
        await once(server, 'exit');
      }
    },
  };
}
