/** `satchel serve`: the REST API over the data directory, until SIGINT or SIGTERM. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Context } from '../context.js';
import { usageError } from '../errors.js';
import { examples } from '../format.js';

/** Commander parser for ports: 0 (any free port) to 65535. */
function portNumber(value: string): number {
  const n = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 0 && n <= 65_535)) {
    throw new InvalidArgumentError('must be a port number from 0 to 65535');
  }
  return n;
}

function envPort(value: string): number {
  try {
    return portNumber(value);
  } catch {
    throw usageError(`invalid SATCHEL_PORT ${JSON.stringify(value)}`, 'use a port from 0 to 65535');
  }
}

/** Errors of binding the port, as one clear line (exit 2) instead of an internal error. */
function bindError(error: unknown, host: string, port: number): unknown {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  if (code === 'EADDRINUSE') {
    return usageError(`${host}:${port} is already in use`, 'pass --port (or SATCHEL_PORT)');
  }
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    return usageError(`cannot listen on ${host}:${port} (${code})`, 'pass --host and --port');
  }
  return error;
}

export function registerServeCommand(program: Command, ctx: Context): void {
  const serve = program
    .command('serve')
    .description(
      'serve the REST API on the data directory until SIGINT or SIGTERM, which let requests in ' +
        'flight finish before exiting; on the first start, print the admin key',
    )
    .summary('serve the REST API over HTTP')
    .addOption(
      new Option(
        '--port <port>',
        'port to listen on, 0 for any free one (default: SATCHEL_PORT, else 8787)',
      ).argParser(portNumber),
    )
    .addOption(
      new Option('--host <host>', 'address to listen on (default: SATCHEL_HOST, else 127.0.0.1)'),
    )
    .action(async (flags: { port?: number; host?: string }, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const untilStopped = run.io.untilStopped;
      if (untilStopped === undefined) {
        throw usageError('serve runs until the process is stopped; run it as a process');
      }
      const port = flags.port ?? envPort(ctx.env.port);
      const host = flags.host ?? ctx.env.host;
      // Always the data directory (SATCHEL_URL names a server to talk to, not this one).
      const engine = await run.engine();
      const adminKey = ctx.takeCreatedAdminKey(engine);
      // Listening for the signals before saying we listen: a script may signal at once.
      const stopped = untilStopped();
      // Loaded on demand: no other command needs the HTTP stack, and startup time matters.
      const api = await import('@satchel/api');
      const server = await api.serve(engine, { host, port }).catch((error: unknown) => {
        throw bindError(error, host, port);
      });
      if (adminKey !== null) {
        run.out(`first start: created the admin key (saved in ${run.adminKeyFile()}, mode 0600):`);
        run.out(`  ${adminKey}`);
        run.note(
          `try: curl -H "Authorization: Bearer $(cat ${run.adminKeyFile()})" ${server.url}/v1/whoami`,
        );
      }
      run.out(`listening on ${server.url}`);
      const signal = await stopped;
      run.note(`${signal}: finishing requests in flight, then stopping`);
      await server.close();
      // The engine is closed by run() once this action returns.
    });
  examples(serve, [
    'satchel serve',
    'satchel serve --port 9000 --host 0.0.0.0',
    'SATCHEL_DATA=/srv/satchel SATCHEL_PORT=9000 satchel serve',
  ]);
}
