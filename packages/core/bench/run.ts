/** `pnpm bench`: runs the storage-engine benchmarks (all, or those named) and prints a summary. */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir, readdir, rm, rmdir } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { auditAppends } from './audit.js';
import { auditedReads } from './audited-reads.js';
import { lockRoundTrip } from './locks.js';
import { smallReads } from './reads.js';
import { s3Bench } from './s3.js';
import { searchBench } from './search.js';
import { streamedWrite } from './stream.js';
import { syncBench } from './sync.js';
import { sandboxSyncBench } from './sync-sandbox.js';
import { timeTravelBench } from './time-travel.js';
import { undoBench } from './undo.js';
import { type BenchConfig, type Benchmark, type Check, envInt, TMP_ROOT } from './util.js';
import { wakeLatency } from './wake.js';
import { batchedWrites, concurrentWrites, sequentialWrites } from './writes.js';

const BENCHMARKS: Record<string, Benchmark> = {
  sequential: sequentialWrites,
  batched: batchedWrites,
  concurrent: concurrentWrites,
  reads: smallReads,
  stream: streamedWrite,
  locks: lockRoundTrip,
  audit: auditAppends,
  'audited-reads': auditedReads,
  search: searchBench,
  sync: syncBench,
  'sync-sandbox': sandboxSyncBench,
  s3: s3Bench,
  wake: wakeLatency,
  undo: undoBench,
  'time-travel': timeTravelBench,
};

function diskOf(dir: string): string {
  try {
    const out = execFileSync('df', ['-h', dir], { encoding: 'utf8' }).trim().split('\n');
    const [device, size, , avail] = (out.at(-1) ?? '').split(/\s+/);
    return `${device ?? '?'} (${size ?? '?'}, ${avail ?? '?'} free)`;
  } catch {
    return 'unknown';
  }
}

function printSummary(checks: readonly Check[], crashed: readonly string[]): void {
  const header = [
    'benchmark',
    'core (median)',
    'baseline (median)',
    'measured',
    'target',
    'result',
  ];
  const rows = checks.map((c) => [
    c.benchmark,
    c.subject,
    c.baseline,
    c.measured,
    c.target,
    c.pass === null ? '-' : c.pass ? 'PASS' : 'MISS',
  ]);
  for (const name of crashed) rows.push([name, '-', '-', '-', '-', 'CRASH']);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log('\nSummary');
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

async function removeRunDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  // Leave .bench-tmp/ only if another run is using it.
  if ((await readdir(TMP_ROOT).catch(() => ['?'])).length === 0) await rmdir(TMP_ROOT);
}

async function main(): Promise<number> {
  const names = process.argv.slice(2).filter((a) => a !== '--');
  const unknown = names.filter((n) => !(n in BENCHMARKS));
  if (unknown.length > 0) {
    console.error(
      `unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`,
    );
    return 2;
  }
  const selected = names.length > 0 ? names : Object.keys(BENCHMARKS);
  const rounds = envInt('BENCH_ROUNDS', 5);
  const config: BenchConfig = {
    rounds,
    files: envInt('BENCH_FILES', 2000),
    streamRounds: envInt('BENCH_STREAM_ROUNDS', Math.min(3, rounds)),
    streamMb: envInt('BENCH_STREAM_MB', 1024),
    tmp: join(TMP_ROOT, `run-${process.pid}`),
  };
  await mkdir(config.tmp, { recursive: true });
  const cleanup = (): void => {
    // Synchronous: nothing else may run (and write into the directory) before the exit.
    rmSync(config.tmp, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', cleanup);
  process.once('SIGTERM', cleanup);

  console.log(
    `satchel core bench — ${new Date().toISOString()}, Node ${process.version}, ` +
      `${cpus().length} CPUs, disk ${diskOf(config.tmp)}`,
  );
  console.log(
    `rounds ${config.rounds}, ${config.files} files per write round ` +
      `(stream: ${config.streamRounds} rounds of ${config.streamMb} MiB), data in ${config.tmp}; ` +
      'rates are medians of the rounds, ratio = core / baseline',
  );
  const started = process.hrtime.bigint();
  const checks: Check[] = [];
  const crashed: string[] = [];
  try {
    for (const name of selected) {
      const bench = BENCHMARKS[name];
      if (!bench) continue;
      const start = process.hrtime.bigint();
      try {
        checks.push(...(await bench(config)));
        const took = Number(process.hrtime.bigint() - start) / 1e9;
        console.log(`  (${name}: ${took.toFixed(0)} s)`);
      } catch (error) {
        crashed.push(name);
        console.error(`\n${name} crashed:`, error);
      }
    }
  } finally {
    await removeRunDir(config.tmp);
  }
  printSummary(checks, crashed);
  const total = Number(process.hrtime.bigint() - started) / 1e9;
  const passes = checks.filter((c) => c.pass === true).length;
  const misses = checks.filter((c) => c.pass === false).length;
  const reported = checks.length - passes - misses;
  console.log(
    `\n${passes} PASS, ${misses} MISS, ${reported} reported without a target, ` +
      `${crashed.length} crashed ` +
      `in ${total.toFixed(0)} s (a MISS is a measurement, not a failure)`,
  );
  return crashed.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
