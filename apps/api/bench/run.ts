/**
 * `pnpm bench`: the HTTP API on loopback against a Hono route with a constant bearer check and
 * bare node:http servers — 4 KiB GET and PUT (req/s, p99, server CPU µs per request) with
 * autocannon, and lock acquire+release round trips (p50). Targets from issue 15.
 * BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_LOCKS; BENCH_ONLY (a comma list of
 * `get`, `put`, `locks`; default all) runs part of it, e.g. `BENCH_ONLY=get` for GET CPU alone;
 * BENCH_CPU_PROF=<dir> writes a CPU profile of the servers' process there.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { API_DIR, type ServersReady } from './servers.js';

const TMP = join(API_DIR, '.bench-tmp', `run-${process.pid}`);

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name}: positive integer`);
  return value;
}

const ROUNDS = envInt('BENCH_ROUNDS', 3);
const SECONDS = envInt('BENCH_SECONDS', 5);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const LOCKS = envInt('BENCH_LOCKS', 500);
const PARTS = ['get', 'put', 'locks'] as const;
const ONLY = new Set((process.env.BENCH_ONLY ?? PARTS.join(',')).split(',').map((p) => p.trim()));
for (const part of ONLY) {
  if (!(PARTS as readonly string[]).includes(part)) {
    throw new Error(`BENCH_ONLY: ${part} is not one of ${PARTS.join(', ')}`);
  }
}

interface Check {
  readonly name: string;
  readonly satchel: string;
  readonly baseline: string;
  readonly measured: string;
  readonly target: string;
  readonly pass: boolean | null;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
};
const fmt = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toFixed(2));

interface Load {
  readonly rps: number;
  readonly p99: number;
  /** Server CPU (user + system) per request, µs. */
  readonly cpu: number;
}

/** Reads the servers' process CPU time (µs), from servers.ts over its stdin/stdout. */
type CpuProbe = () => Promise<number>;

async function load(
  url: string,
  method: 'GET' | 'PUT',
  key: string,
  body: Buffer,
  cpu: CpuProbe,
): Promise<Load> {
  const before = await cpu();
  const result = await autocannon({
    url,
    method,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { Authorization: `Bearer ${key}` },
    ...(method === 'PUT' ? { body } : {}),
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${method} ${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  const used = (await cpu()) - before;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    cpu: used / Math.max(1, result.requests.total),
  };
}

function compare(
  name: string,
  label: string,
  sides: Record<string, Load[]>,
  target: number,
): Check[] {
  const [subject, base] = [sides.satchel ?? [], sides[label] ?? []];
  const rps = median(subject.map((l) => l.rps));
  const baseRps = median(base.map((l) => l.rps));
  const p99 = median(subject.map((l) => l.p99));
  const ratio = rps / baseRps;
  const ratios = subject.map((l, i) => l.rps / (base[i]?.rps ?? Number.NaN));
  console.log(
    `  ${name}: satchel ${fmt(rps)} req/s (p99 ${fmt(p99)} ms, ` +
      `${fmt(median(subject.map((l) => l.cpu)))} µs CPU/req) vs ${label} ${fmt(baseRps)} req/s ` +
      `(p99 ${fmt(median(base.map((l) => l.p99)))} ms, ${fmt(median(base.map((l) => l.cpu)))} µs ` +
      `CPU/req); per round ${subject.map((l) => fmt(l.rps)).join(', ')} vs ` +
      `${base.map((l) => fmt(l.rps)).join(', ')}, ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}`,
  );
  return [
    {
      name: `${name} req/s vs ${label}`,
      satchel: `${fmt(rps)} req/s`,
      baseline: `${fmt(baseRps)} req/s`,
      measured: `${ratio.toFixed(2)}×`,
      target: `≥ ${target}×`,
      pass: ratio >= target,
    },
    {
      name: `${name} p99`,
      satchel: `${fmt(p99)} ms`,
      baseline: '-',
      measured: `${fmt(p99)} ms`,
      target: '< 20 ms',
      pass: p99 < 20,
    },
  ];
}

async function lockRoundTrips(url: string, key: string): Promise<number> {
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const times: number[] = [];
  for (let i = 0; i < LOCKS + 20; i++) {
    const start = performance.now();
    const res = await fetch(`${url}/v1/workspaces/bench/locks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ path: '/locked.txt', ttlSeconds: 60 }),
    });
    const { id } = (await res.json()) as { id: string };
    const released = await fetch(`${url}/v1/workspaces/bench/locks/${id}`, {
      method: 'DELETE',
      headers,
    });
    await released.arrayBuffer();
    // The first 20 warm the connection and the JIT.
    if (i >= 20) times.push(performance.now() - start);
  }
  return median(times);
}

function summary(checks: readonly Check[]): void {
  const header = [
    'benchmark',
    'satchel (median)',
    'baseline (median)',
    'measured',
    'target',
    'result',
  ];
  const rows = checks.map((c) => [
    c.name,
    c.satchel,
    c.baseline,
    c.measured,
    c.target,
    c.pass === null ? '-' : c.pass ? 'PASS' : 'MISS',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log('\nSummary');
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

/** The CPU µs per request of the loads, median, as a check with an optional ceiling. */
function cpuCheck(name: string, loads: readonly Load[], ceiling: number | null): Check {
  const cpu = median(loads.map((l) => l.cpu));
  return {
    name: `${name} server CPU per request`,
    satchel: `${fmt(cpu)} µs`,
    baseline: '-',
    measured: `${fmt(cpu)} µs`,
    target: ceiling === null ? 'report' : `≤ ${ceiling} µs`,
    pass: ceiling === null ? null : cpu <= ceiling,
  };
}

/** Starts the servers in their own process (bench/servers.ts) and resolves with their URLs. */
async function startServers(): Promise<{
  child: ChildProcess;
  ready: ServersReady;
  cpu: CpuProbe;
}> {
  const child = spawn(
    process.execPath,
    [
      // BENCH_CPU_PROF=dir: a CPU profile of the servers' process, written there when it exits.
      ...(process.env.BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
        : []),
      '--import',
      'tsx',
      fileURLToPath(new URL('servers.ts', import.meta.url)),
    ],
    { cwd: API_DIR, stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, BENCH_TMP: TMP } },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[
    Symbol.asyncIterator
  ]();
  const exited = once(child, 'exit').then(() => {
    throw new Error('the bench servers exited');
  });
  exited.catch(() => undefined);
  const next = async (): Promise<string> => {
    const line = await Promise.race([lines.next(), exited]);
    if (line.done) throw new Error('the bench servers closed their output');
    return line.value;
  };
  const ready = JSON.parse(await next()) as ServersReady;
  const cpu = async (): Promise<number> => {
    child.stdin?.write('\n');
    const { user, system } = JSON.parse(await next()) as { user: number; system: number };
    return user + system;
  };
  return { child, ready, cpu };
}

async function main(): Promise<void> {
  console.log(
    `satchel api bench — ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} CPUs`,
  );
  console.log(
    `${ROUNDS} rounds × ${SECONDS} s, ${CONNECTIONS} connections; the servers run in a child ` +
      'process, autocannon in this one, on loopback; req/s and p99 are medians of the rounds.\n' +
      'Satchel PUT is durable (SQLite WAL, synchronous=FULL: fsync before the answer); ' +
      '"bare+fsync" writes and fsyncs a file per PUT. "hono" answers the same bytes behind a ' +
      "constant bearer check; CPU is the server process's user + system time per request.",
  );
  const { child, ready, cpu } = await startServers();
  const { urls, key } = ready;
  const content = readFileSync(join(TMP, 'content.bin'));
  const file = (base: string) => `${base}/v1/workspaces/bench/files/f.bin`;
  const gets: Record<string, Load[]> = { satchel: [], hono: [], bare: [] };
  const puts: Record<string, Load[]> = { satchel: [], 'bare+fsync': [] };
  try {
    // Unmeasured: JIT, page cache, connections.
    for (const side of ['satchel', 'hono', 'bare'] as const) {
      await autocannon({
        url: file(urls[side]),
        connections: CONNECTIONS,
        duration: 1,
        headers: { Authorization: `Bearer ${key}` },
      });
    }
    for (let round = 0; round < ROUNDS; round++) {
      // Rotating the order, so no side always runs on the warmer machine.
      const sides = ['satchel', 'hono', 'bare'] as const;
      const order = [...sides.slice(round % 3), ...sides.slice(0, round % 3)];
      for (const side of ONLY.has('get') ? order : []) {
        gets[side]?.push(await load(file(urls[side]), 'GET', key, content, cpu));
      }
      const putOrder = round % 2 === 0 ? ['satchel', 'bare+fsync'] : ['bare+fsync', 'satchel'];
      for (const side of (ONLY.has('put') ? putOrder : []) as (keyof typeof urls)[]) {
        puts[side]?.push(await load(file(urls[side]), 'PUT', key, content, cpu));
      }
      console.log(`  round ${round + 1}/${ROUNDS} done`);
    }
    const checks = [
      ...(ONLY.has('get')
        ? [
            ...compare('GET 4 KiB', 'hono', gets, 0.5),
            compare('GET 4 KiB', 'bare', gets, 0.2)[0],
            cpuCheck('GET 4 KiB', gets.satchel ?? [], 200),
          ]
        : []),
      ...(ONLY.has('put')
        ? [
            ...compare('PUT 4 KiB', 'bare+fsync', puts, 1.5),
            cpuCheck('PUT 4 KiB', puts.satchel ?? [], null),
          ]
        : []),
    ].filter((c): c is Check => c !== undefined);
    if (ONLY.has('locks')) {
      const p50 = await lockRoundTrips(urls.satchel, key);
      console.log(
        `  lock acquire+release over HTTP: p50 ${p50.toFixed(2)} ms (${LOCKS} round trips)`,
      );
      checks.push({
        name: 'lock acquire+release p50',
        satchel: `${p50.toFixed(2)} ms`,
        baseline: '-',
        measured: `${p50.toFixed(2)} ms`,
        target: '< 2 ms',
        pass: p50 < 2,
      });
    }
    summary(checks);
    const misses = checks.filter((c) => c.pass === false).length;
    console.log(
      `\n${checks.length - misses} PASS, ${misses} MISS (a MISS is a measurement, not a failure)`,
    );
  } finally {
    // Closing stdin ends the servers cleanly (a CPU profile is written on exit); kill if stuck.
    const exited = once(child, 'exit');
    child.stdin?.end();
    const stuck = setTimeout(() => child.kill(), 10_000);
    await exited;
    clearTimeout(stuck);
    await rm(join(API_DIR, '.bench-tmp'), { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
