/** `satchel mcp`: the MCP server over stdio, on the data directory or (SATCHEL_URL) a server. */
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { examples } from '../format.js';

export function registerMcpCommand(program: Command, ctx: Context): void {
  const mcp = program
    .command('mcp')
    .description(
      'serve MCP over stdio for an agent (Claude Desktop, Claude Code, Cursor…) until stdin ' +
        'closes: on the data directory, or on the server of SATCHEL_URL as SATCHEL_TOKEN. ' +
        'stdout carries only protocol messages; notes go to stderr',
    )
    .summary('serve MCP over stdio')
    .addOption(
      new Option(
        '--read-only',
        'offer only the tools that change nothing (a read-only key does too)',
      ),
    )
    .action(async (flags: { readOnly?: boolean }, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const satchel = await run.satchel();
      // Loaded on demand: no other command needs the MCP SDK, and startup time matters.
      const { createMcpServer, serveStdio } = await import('@satchel/mcp');
      const server = await createMcpServer(satchel, {
        workspace: run.globals.workspace ?? ctx.env.workspace,
        readOnly: flags.readOnly === true,
        session: run.call().session,
      });
      await serveStdio(server, run.io.stdin, run.io.stdout, run.io.untilStopped?.());
      // The engine (or client) is closed by run() once this action returns.
    });
  examples(mcp, [
    'satchel mcp -w notes',
    'SATCHEL_URL=https://satchel.example SATCHEL_TOKEN=… satchel mcp --read-only',
    'claude mcp add satchel -- satchel mcp -w notes',
  ]);
}
