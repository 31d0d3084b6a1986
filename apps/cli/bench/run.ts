/**
 * `pnpm bench`: cold start of the built CLI (`node dist/main.js …`, a fresh process each time),
 * wall time from spawn to exit, against `node -e 0` in the same run: `--version`, `--help`,
 * `ls` on a local data directory, and `ls` against a `satchel serve` on loopback (the server runs
 * throughout; only the client process is timed). Rounds alternate the order of the commands;
 * figures are medians. The commands start from V8's data for the chunks (start.ts): the build's
 * (dist/v8/), or what the warm-up kept. "first start" runs `ls` with an empty cache folder every
 * time, as in a fresh sandbox; "no matching data" also under another V8 heap limit, which the
 * build's data does not match, so V8 parses the chunks and the run writes its own. BENCH_ROUNDS (default 10), BENCH_FILES (files in the workspace, 20).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openSatchel } from '@satchel/core';

const CLI_DIR = fileURLToPath(new URL('..', import.meta.url));
const MAIN = join(CLI_DIR, 'dist', 'main.js');
const TMP = join(CLI_DIR, '.bench-tmp', `run-${process.pid}`);
const WORKSPACE = 'bench';

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name}: positive integer`);
  return value;
}

const ROUNDS = envInt('BENCH_ROUNDS', 10);
const FILES = envInt('BENCH_FILES', 20);

interface Case {
  readonly name: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Target in ms; null for the baseline and for what is only reported. */
  readonly target: number | null;
  /** Run with an empty code cache each time (a user's first command). */
  readonly firstStart?: true;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
};
const ms = (n: number): string => `${n.toFixed(0)} ms`;

/** Runs one fresh process to its exit; resolves with its wall time in ms. Fails on exit ≠ 0. */
async function timed(c: Case): Promise<number> {
  const cache = c.firstStart ? await mkdtemp(join(TMP, 'cache-')) : join(TMP, 'cache');
  const start = performance.now();
  const child = spawn(process.execPath, c.args, {
    cwd: TMP,
    env: { PATH: process.env.PATH ?? '', HOME: TMP, XDG_CACHE_HOME: cache, ...c.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (piece: Buffer) => {
    out += piece.toString();
  });
  child.stderr.on('data', (piece: Buffer) => {
    err += piece.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const elapsed = performance.now() - start;
  if (code !== 0) throw new Error(`${c.name} exited ${code}: ${err.trim()}`);
  // ls must have listed the workspace, not an empty directory.
  if (c.name.startsWith('satchel ls') && !out.includes('f0.txt')) {
    throw new Error(`${c.name} did not list the workspace: ${out.slice(0, 200)}`);
  }
  return elapsed;
}

/** A data directory with one workspace of FILES small files; returns its admin key. */
async function seed(data: string): Promise<string> {
  const engine = await openSatchel({ data });
  try {
    await engine.createWorkspace(WORKSPACE);
    for (let i = 0; i < FILES; i++) {
      await engine.writeFile(WORKSPACE, `/f${i}.txt`, `file ${i}\n`);
    }
    return engine.createdAdminKey ?? '';
  } finally {
    await engine.close();
  }
}

/** `satchel serve` on a free loopback port; resolves with its URL once it listens. */
async function serve(data: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [MAIN, 'serve', '--data', data, '--port', '0'], {
    cwd: TMP,
    env: { PATH: process.env.PATH ?? '', HOME: TMP, SATCHEL_LOG_LEVEL: 'warn' },
    // Its stderr (the access log, "finishing requests in flight" at the end) is not the bench's.
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    const match = /^listening on (\S+)/.exec(line);
    if (match?.[1] !== undefined) return { child, url: match[1] };
  }
  throw new Error('satchel serve exited before it listened');
}

function summary(cases: readonly Case[], times: ReadonlyMap<string, number[]>): number {
  const base = median(times.get('node -e 0') ?? []);
  const header = ['command', 'median', 'min–max', 'minus node -e 0', 'target', 'result'];
  const rows = cases.map((c) => {
    const t = times.get(c.name) ?? [];
    const m = median(t);
    return [
      c.name,
      ms(m),
      `${ms(Math.min(...t))}–${ms(Math.max(...t))}`,
      c.name === 'node -e 0' ? '-' : ms(m - base),
      c.target === null ? '-' : `≤ ${c.target} ms`,
      c.target === null ? '-' : m <= c.target ? 'PASS' : 'MISS',
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log('\nSummary (wall time of a fresh process, medians)');
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  return rows.filter((r) => r[5] === 'MISS').length;
}

async function main(): Promise<void> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the CLI first`);
  const load = loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
  console.log(
    `satchel cli cold-start bench — ${new Date().toISOString()}, Node ${process.version}, ` +
      `${cpus().length} CPUs, load average ${load}`,
  );
  console.log(
    `${ROUNDS} rounds, order alternating; each figure is the wall time of a fresh process from ` +
      `spawn to exit; the workspace holds ${FILES} files.`,
  );
  await mkdir(TMP, { recursive: true });
  const local = join(TMP, 'local');
  const served = join(TMP, 'served');
  await seed(local);
  const key = await seed(served);
  const server = await serve(served);
  const ls = ['ls', '-w', WORKSPACE];
  const cases: Case[] = [
    { name: 'node -e 0', args: ['-e', '0'], env: {}, target: null },
    { name: 'satchel --version', args: [MAIN, '--version'], env: {}, target: 200 },
    { name: 'satchel --help', args: [MAIN, '--help'], env: {}, target: 200 },
    { name: 'satchel ls (local)', args: [MAIN, ...ls], env: { SATCHEL_DATA: local }, target: 300 },
    {
      name: 'satchel ls (local, first start)',
      args: [MAIN, ...ls],
      env: { SATCHEL_DATA: local },
      target: null,
      firstStart: true,
    },
    {
      name: 'satchel ls (local, no matching data)',
      args: [MAIN, ...ls],
      env: { SATCHEL_DATA: local, NODE_OPTIONS: '--max-old-space-size=3000' },
      target: null,
      firstStart: true,
    },
    {
      name: 'satchel ls (server)',
      args: [MAIN, ...ls],
      env: { SATCHEL_URL: server.url, SATCHEL_TOKEN: key },
      target: 300,
    },
  ];
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  try {
    // Unmeasured warm-up: the page cache, and the server's first requests.
    for (const c of cases) await timed(c);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? cases : [...cases].reverse();
      const line: string[] = [];
      for (const c of order) {
        const t = await timed(c);
        times.get(c.name)?.push(t);
        line.push(`${c.name} ${ms(t)}`);
      }
      console.log(`  round ${round + 1}/${ROUNDS}: ${line.join(', ')}`);
    }
    const misses = summary(cases, times);
    console.log(
      `\n${cases.filter((c) => c.target !== null).length - misses} PASS, ${misses} MISS ` +
        '(a MISS is a measurement, not a failure)',
    );
  } finally {
    server.child.kill();
    await once(server.child, 'exit');
    await rm(join(CLI_DIR, '.bench-tmp'), { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
