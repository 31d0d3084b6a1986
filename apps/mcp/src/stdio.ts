/** MCP over a pair of byte streams (a process's stdin and stdout): what `satchel mcp` runs. */
import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/**
 * Serves `server` over `input`/`output` until the input ends (the client went away), `stop`
 * resolves (a signal), or the transport fails; then closes the server. Writes nothing but
 * protocol messages to `output`.
 */
export async function serveStdio(
  server: McpServer,
  input: Readable,
  output: Writable,
  stop?: Promise<unknown>,
): Promise<void> {
  const transport = new StdioServerTransport(input, output);
  const ended = new Promise<void>((resolve) => {
    input.once('end', resolve);
    input.once('close', resolve);
    transport.onclose = resolve;
  });
  await server.connect(transport);
  await Promise.race(stop === undefined ? [ended] : [ended, stop]);
  await server.close();
}
