/** Profiles sequential 4 KiB writeFile: statements per write and a CPU profile (PROFILE=1). */

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSatchel } from '../src/index.js';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');
const counts = new Map<string, number>();
const times = new Map<string, number>();
let counting = false;
{
  const db = new Database(':memory:');
  const proto = Object.getPrototypeOf(db.prepare('select 1'));
  for (const m of ['run', 'get', 'all', 'iterate', 'raw', 'pluck']) {
    const orig = proto[m];
    if (m === 'raw' || m === 'pluck') continue;
    proto[m] = function (this: { source: string }, ...args: unknown[]) {
      if (!counting) return orig.apply(this, args);
      counts.set(this.source, (counts.get(this.source) ?? 0) + 1);
      const t = process.hrtime.bigint();
      try {
        return orig.apply(this, args);
      } finally {
        times.set(
          this.source,
          (times.get(this.source) ?? 0) + Number(process.hrtime.bigint() - t) / 1000,
        );
      }
    };
  }
  const exec = Database.prototype.exec;
  Database.prototype.exec = function (this: unknown, sql: string) {
    if (counting) counts.set(`EXEC ${sql}`, (counts.get(`EXEC ${sql}`) ?? 0) + 1);
    return exec.call(this, sql);
  };
  const prep = Database.prototype.prepare;
  Database.prototype.prepare = function (this: unknown, sql: string) {
    if (counting) counts.set(`PREPARE ${sql}`, (counts.get(`PREPARE ${sql}`) ?? 0) + 1);
    return prep.call(this, sql);
  };
  db.close();
}
const N = Number(process.env.N ?? 5000);
const dir = await mkdtemp(join(tmpdir(), 'satchel-prof-'));
const satchel = await openSatchel({ data: dir });
await satchel.createWorkspace('bench');
const pool = randomBytes(4096 + N + 500);
for (let i = 0; i < 300; i++)
  await satchel.writeFile('bench', `/warm/${i}`, pool.subarray(i, i + 4096));
const session = new Session();
if (process.env.PROFILE) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
}
counting = true;
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < N; i++)
  await satchel.writeFile('bench', `/w/${i}`, pool.subarray(500 + i, 500 + i + 4096));
const ms = performance.now() - t0;
const cpu = process.cpuUsage(c0);
counting = false;
if (process.env.PROFILE) {
  const { profile } = await session.post('Profiler.stop');
  await writeFile(process.env.PROFILE, JSON.stringify(profile));
}
await satchel.close();
if (process.env.KEEP) console.log('kept', dir);
else await rm(dir, { recursive: true, force: true });
const total = [...counts.values()].reduce((a, b) => a + b, 0);
console.log(
  `${N} writes in ${ms.toFixed(0)} ms: ${((ms * 1000) / N).toFixed(0)} µs wall, ${((cpu.user + cpu.system) / N).toFixed(0)} µs CPU (user ${(cpu.user / N).toFixed(0)}, sys ${(cpu.system / N).toFixed(0)}) per write`,
);
console.log(`statements per write: ${(total / N).toFixed(2)}`);
for (const [sql, n] of [...counts].sort((a, b) => b[1] - a[1]))
  console.log(
    `${(n / N).toFixed(3)} ${((times.get(sql) ?? 0) / N).toFixed(0).padStart(5)}µs  ${sql.replace(/\s+/g, ' ').slice(0, 220)}`,
  );
