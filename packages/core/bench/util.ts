/** Shared bench helpers: config, temp dirs, interleaved rounds, medians, raw baseline, output. */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openSatchel, type SatchelEngine } from '../src/index.js';

/** packages/core, the directory the bench runs from. */
export const CORE_DIR = fileURLToPath(new URL('..', import.meta.url));
/** All bench data lives here (same disk as the repo); created and removed by each run. */
export const TMP_ROOT = join(CORE_DIR, '.bench-tmp');

export const KIB = 1024;
export const MIB = 1024 * 1024;
export const WORKSPACE = 'bench';

export interface BenchConfig {
  /** Measured rounds per benchmark (each round runs baseline and subject once). */
  readonly rounds: number;
  /** Files written per round by each side of the write benchmarks. */
  readonly files: number;
  /** Rounds of the streaming benchmark (each round is two 1 GiB child processes). */
  readonly streamRounds: number;
  /** Size of the streamed file in MiB. */
  readonly streamMb: number;
  /** Directory this run may use; removed at the end of the run. */
  readonly tmp: string;
}

export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** Outcome of one check: a ratio (or absolute value) against its target. */
export interface Check {
  readonly benchmark: string;
  readonly subject: string;
  readonly baseline: string;
  readonly measured: string;
  readonly target: string;
  /** null: a figure the issue asks to report, with no target to meet. */
  readonly pass: boolean | null;
}

export type Benchmark = (config: BenchConfig) => Promise<Check[]>;

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const hi = sorted[mid] ?? Number.NaN;
  const lo = sorted[mid - 1] ?? hi;
  return sorted.length % 2 === 1 ? hi : (lo + hi) / 2;
}

/** The value below which a fraction `p` of the sorted `values` lie (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.ceil(sorted.length * p) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? Number.NaN;
}

/** A measured side of a comparison: runs once and returns its rate (higher is better). */
export interface Side {
  readonly label: string;
  readonly run: (round: number) => Promise<number>;
}

/** Flushes dirty pages of every file system, so no side pays for the previous side's writeback. */
export function settle(): void {
  execFileSync('sync');
}

/**
 * Runs every side once per round, rotating which side goes first so that neither always runs
 * on a warmer (or noisier) machine, and returns each side's per-round values. Each run starts
 * after `settle()`.
 */
export async function interleave(rounds: number, sides: readonly Side[]): Promise<number[][]> {
  const values: number[][] = sides.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < sides.length; k++) {
      const index = (round + k) % sides.length;
      const side = sides[index];
      const out = values[index];
      if (!side || !out) continue;
      settle();
      out.push(await side.run(round));
    }
  }
  return values;
}

/** Seconds taken by `fn`. */
export async function seconds(fn: () => Promise<void> | void): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/**
 * A source file of `mb` MiB for the streamed benchmarks: one random MiB written `mb` times, the
 * block number stamped in, so nothing dedupes; synced, so no side pays for its write-back.
 */
export async function generateSource(path: string, mb: number): Promise<void> {
  const block = randomBytes(MIB);
  const fh = await open(path, 'w');
  try {
    for (let i = 0; i < mb; i++) {
      block.writeUInt32BE(i, 0);
      await fh.write(block, 0, MIB);
    }
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export const fmtRate = (n: number): string =>
  n >= 100 ? n.toFixed(0).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : n.toFixed(1);

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** Prints per-round values and medians of a rate comparison and returns its check. */
export function rateCheck(
  benchmark: string,
  unit: string,
  baseline: { label: string; values: readonly number[] },
  subject: { label: string; values: readonly number[] },
  target: number,
): Check {
  const b = median(baseline.values);
  const s = median(subject.values);
  const ratio = s / b;
  const paired = subject.values.map((v, i) => v / (baseline.values[i] ?? Number.NaN));
  const width = Math.max(baseline.label.length, subject.label.length);
  const row = (label: string, values: readonly number[], med: number): string =>
    `  ${label.padEnd(width)}  median ${fmtRate(med).padStart(9)} ${unit}   rounds: ${values
      .map(fmtRate)
      .join(', ')}`;
  console.log(row(baseline.label, baseline.values, b));
  console.log(row(subject.label, subject.values, s));
  const range = `${Math.min(...paired).toFixed(2)}–${Math.max(...paired).toFixed(2)}`;
  const pass = ratio >= target;
  const verdict = pass ? 'PASS' : 'MISS';
  // Three decimals where two would round a miss up to the target (0.896 shown as 0.90).
  const shown = ratio.toFixed(!pass && Number(ratio.toFixed(2)) >= target ? 3 : 2);
  console.log(`  ratio ${shown}× (per-round ${range})  target ≥ ${target}×  ${verdict}`);
  return {
    benchmark,
    subject: `${fmtRate(s)} ${unit}`,
    baseline: `${fmtRate(b)} ${unit}`,
    measured: `${shown}×`,
    target: `≥ ${target}×`,
    pass,
  };
}

/** A fresh, empty directory under the run's temp dir. */
export async function freshDir(config: BenchConfig, name: string): Promise<string> {
  const dir = join(config.tmp, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  return dir;
}

/** Runs one statement on the database at `url` (schema set-up of PostgreSQL runs). */
async function onDatabase(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * An engine on a fresh data directory with workspace `bench`; `dispose` closes and deletes it.
 * With `BENCH_DATABASE_URL` its metadata goes to a fresh schema `satchel_bench_<name>` of that
 * PostgreSQL database instead (dropped by `dispose`).
 */
export async function freshSatchel(
  config: BenchConfig,
  name: string,
): Promise<{ satchel: SatchelEngine; data: string; dispose: () => Promise<void> }> {
  const data = await freshDir(config, name);
  const url = process.env.BENCH_DATABASE_URL;
  const schema = `satchel_bench_${name.replace(/\W/g, '_')}`;
  if (url) {
    await onDatabase(url, `drop schema if exists ${schema} cascade`);
    await onDatabase(url, `create schema ${schema}`);
  }
  const satchel = await openSatchel({
    data,
    ...(url ? { stores: { metadata: { kind: 'postgres', url, schema } } } : {}),
  });
  await satchel.createWorkspace(WORKSPACE);
  // BENCH_QUOTA=1: quotas no write reaches, so every write pays for the check (engine/quota.ts).
  if (process.env.BENCH_QUOTA === '1') {
    const far = Number.MAX_SAFE_INTEGER;
    await satchel.updateWorkspace(WORKSPACE, {
      quotaBytes: far,
      quotaHistoryBytes: far,
      quotaFiles: far,
    });
  }
  return {
    satchel,
    data,
    dispose: async () => {
      await satchel.close();
      await rm(data, { recursive: true, force: true });
      if (url) await onDatabase(url, `drop schema if exists ${schema} cascade`);
    },
  };
}

/** `count` distinct binary contents of `size` bytes (distinct, so nothing deduplicates). */
export function distinctContents(count: number, size: number): Buffer[] {
  const pool = randomBytes(size + count);
  return Array.from({ length: count }, (_, i) => {
    const data = Buffer.from(pool.subarray(i, i + size));
    data.writeUInt32BE(i, 0);
    return data;
  });
}

/**
 * The raw baseline: one durable file the way a careful program writes it with node:fs — temp
 * file, write, fsync, close, rename into place, fsync the directory. Synchronous calls: in a
 * sequential loop they beat the promise API (no thread-pool round trip per syscall).
 */
export function rawDurableWrite(dir: string, dirFd: number, name: string, data: Uint8Array): void {
  const target = join(dir, name);
  const temp = `${target}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    for (let offset = 0; offset < data.byteLength; ) {
      offset += writeSync(fd, data, offset, data.byteLength - offset);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
  fsyncSync(dirFd);
}

/** Times the raw loop writing `contents` as `<dir>/<i>` in a fresh directory; returns files/s. */
export async function rawLoopRate(
  config: BenchConfig,
  name: string,
  contents: readonly Buffer[],
): Promise<number> {
  const dir = await freshDir(config, name);
  const dirFd = openSync(dir, 'r');
  try {
    const s = await seconds(() => {
      for (const [i, data] of contents.entries()) rawDurableWrite(dir, dirFd, String(i), data);
    });
    return contents.length / s;
  } finally {
    closeSync(dirFd);
    await rm(dir, { recursive: true, force: true });
  }
}
