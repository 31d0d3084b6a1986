/**
 * Child of processes.test.ts and the wake-up benchmark: an engine on the data directory in
 * argv[2] (workspace argv[3], default `ws`) that runs one command per stdin line and answers one
 * line each: `write <path>` → `ok <seq> <when>` (epoch ms, fractional, once the write is
 * acknowledged), `lock <path>` → `locked <id>`, `release <id>` → `ok`, `unmember <principal>` (takes the principal's role in the
 * workspace away) → `ok`.
 * Prints `ready` once open; closes the engine and exits when stdin ends.
 */
import { createInterface } from 'node:readline';
import { openSatchel } from '../engine/open.js';

const WORKSPACE = process.argv[3] ?? 'ws';

const satchel = await openSatchel({ data: process.argv[2] ?? '' });
const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of lines) {
  const [command, arg = ''] = line.split(' ');
  try {
    if (command === 'write') {
      const info = await satchel.writeFile(WORKSPACE, arg, `${Date.now()}`);
      process.stdout.write(`ok ${info.seq} ${performance.timeOrigin + performance.now()}\n`);
    } else if (command === 'lock') {
      const lock = await satchel.acquireLock(WORKSPACE, { path: arg, ttlSeconds: 120 });
      process.stdout.write(`locked ${lock.id}\n`);
    } else if (command === 'release') {
      await satchel.releaseLock(WORKSPACE, arg);
      process.stdout.write('ok\n');
    } else if (command === 'unmember') {
      await satchel.removeMember(WORKSPACE, arg);
      process.stdout.write('ok\n');
    } else {
      process.stdout.write(`error unknown command ${command}\n`);
    }
  } catch (error) {
    process.stdout.write(`error ${error instanceof Error ? error.message : String(error)}\n`);
  }
}
await satchel.close();
