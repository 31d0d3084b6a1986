/**
 * The server of the sync-over-HTTP benchmark (sync.ts), in a process of its own so the client's
 * scan and reads do not share its event loop: `satchel serve` on a fresh data directory (argv[2])
 * with the rate limit off and logs at `warn`. Prints one JSON line `{url, key}`; runs until
 * killed. With `BENCH_CPU_PROF=<dir>` it writes a CPU profile there when sent SIGTERM.
 */
import { openSatchel } from '@satchel/core';
import { pino } from 'pino';
import { serve } from '../src/serve.js';

const data = process.argv[2];
if (data === undefined) throw new Error('usage: sync-server.ts <data directory>');
const engine = await openSatchel({ data });
const key = engine.createdAdminKey;
if (key === undefined) throw new Error(`${data} is not a fresh data directory`);
const server = await serve(engine, {
  port: 0,
  api: { rateLimit: false, logger: pino({ level: 'warn' }), logFault: () => undefined },
});
process.on('SIGTERM', () => {
  void server
    .close()
    .then(() => engine.close())
    .then(() => process.exit(0));
});
process.stdout.write(`${JSON.stringify({ url: server.url, key })}\n`);
