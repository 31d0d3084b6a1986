/** Lock round trip: acquireLock + releaseLock on one path through the facade, latency percentiles. */
import type { SatchelEngine } from '../src/index.js';
import {
  type BenchConfig,
  type Check,
  fmtRate,
  freshSatchel,
  median,
  percentile,
  settle,
  WORKSPACE,
} from './util.js';

const ROUND_TRIPS = 2000;
const WARMUP = 200;
const TARGET_P50_MS = 1;
const PATH = '/locked/file.txt';

const ms = (values: readonly number[]): string => {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    `p50 ${median(sorted).toFixed(3)} ms, p90 ${percentile(sorted, 0.9).toFixed(3)} ms, ` +
    `p99 ${percentile(sorted, 0.99).toFixed(3)} ms, max ${(sorted.at(-1) ?? Number.NaN).toFixed(2)} ms`
  );
};

async function roundTrips(
  satchel: SatchelEngine,
  count: number,
): Promise<{ total: number[]; acquire: number[]; release: number[] }> {
  const total: number[] = [];
  const acquire: number[] = [];
  const release: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const lock = await satchel.acquireLock(WORKSPACE, { path: PATH });
    const t1 = performance.now();
    await satchel.releaseLock(WORKSPACE, lock.id);
    const t2 = performance.now();
    total.push(t2 - t0);
    acquire.push(t1 - t0);
    release.push(t2 - t1);
  }
  return { total, acquire, release };
}

/**
 * Issue 3: exclusive file lock acquired and released on one path, one after the other, through
 * `openSatchel` on a real data directory (each call authorised and audited; lease commits do not
 * wait for fsync, see docs/access.md). No baseline: the target is absolute (p50 < 1 ms).
 */
export async function lockRoundTrip(config: BenchConfig): Promise<Check[]> {
  console.log(
    `\n[6] lock round trip: acquireLock + releaseLock of ${PATH} through the facade, ` +
      `${ROUND_TRIPS} in a row after ${WARMUP} unmeasured`,
  );
  const { satchel, dispose } = await freshSatchel(config, 'locks');
  try {
    await roundTrips(satchel, WARMUP);
    settle();
    const start = performance.now();
    const { total, acquire, release } = await roundTrips(satchel, ROUND_TRIPS);
    const seconds = (performance.now() - start) / 1000;
    const sorted = [...total].sort((a, b) => a - b);
    const p50 = median(sorted);
    const p99 = percentile(sorted, 0.99);
    const over = total.filter((t) => t >= TARGET_P50_MS).length;
    console.log(`  round trip   ${ms(total)}`);
    console.log(`  acquireLock  ${ms(acquire)}`);
    console.log(`  releaseLock  ${ms(release)}`);
    const pass = p50 < TARGET_P50_MS;
    console.log(
      `  ${fmtRate(ROUND_TRIPS / seconds)} round trips/s; ${over} of ${ROUND_TRIPS} took ≥ ` +
        `${TARGET_P50_MS} ms  target p50 < ${TARGET_P50_MS} ms  ${pass ? 'PASS' : 'MISS'}`,
    );
    return [
      {
        benchmark: '6 lock acquire + release',
        subject: `p50 ${p50.toFixed(3)} ms, p99 ${p99.toFixed(2)} ms`,
        baseline: '-',
        measured: `p50 ${p50.toFixed(3)} ms`,
        target: `p50 < ${TARGET_P50_MS} ms`,
        pass,
      },
    ];
  } finally {
    await dispose();
  }
}
