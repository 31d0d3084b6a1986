/**
 * Sync on a generated tree (default 10,000 files, ~100 MB, deterministic): initial push time;
 * a no-change rescan against `rsync -a --dry-run` of the same tree to an identical copy (rsync
 * compares size and mtime too, so both sides do the same work: a stat walk); one-file edit
 * propagation between two watched trees through the engine, p50/p95; rehydrating an empty tree
 * from the workspace against `cp -a` of the same tree.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalTree, syncOnce, watchSync } from '../src/index.js';
import {
  type BenchConfig,
  type Check,
  envInt,
  freshDir,
  freshSatchel,
  interleave,
  MIB,
  median,
  percentile,
  seconds,
  sleep,
  WORKSPACE,
} from './util.js';

const TARGET_RATIO = 1.0;
const TARGET_REHYDRATE_S = 3;
const TARGET_REHYDRATE_RATIO = 1.5;
const TARGET_P95_MS = 500;

/** xorshift32: the same tree on every run. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/** `count` files of ~`totalMb` MB in 100 folders; sizes vary (~1 KiB to ~19 KiB). */
async function generateTree(root: string, count: number, totalMb: number): Promise<number> {
  const next = prng(42);
  const pool = Buffer.alloc(2 * MIB);
  for (let i = 0; i < pool.length; i += 4) pool.writeUInt32LE(next(), i);
  const mean = (totalMb * MIB) / count;
  let bytes = 0;
  for (let d = 0; d < 100; d++) await mkdir(join(root, `dir-${d}`), { recursive: true });
  const writes: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const size = Math.max(16, Math.round(mean * (0.1 + (1.8 * (next() % 1000)) / 1000)));
    const offset = next() % (pool.length - size);
    const data = Buffer.from(pool.subarray(offset, offset + size));
    data.writeUInt32BE(i, 0);
    bytes += size;
    writes.push(writeFile(join(root, `dir-${i % 100}`, `file-${i}.bin`), data));
    if (writes.length >= 64) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
  return bytes;
}

async function propagation(config: BenchConfig, edits: number): Promise<number[]> {
  const { satchel, dispose } = await freshSatchel(config, 'sync-watch-data');
  const a = await freshDir(config, 'sync-watch-a');
  const b = await freshDir(config, 'sync-watch-b');
  let stop = async (): Promise<void> => undefined;
  try {
    await generateTree(a, envInt('BENCH_SYNC_WATCH_FILES', 10_000), envInt('BENCH_SYNC_MB', 100));
    await syncOnce({ satchel, workspace: WORKSPACE, tree: new LocalTree(a), mode: 'push' });
    await syncOnce({ satchel, workspace: WORKSPACE, tree: new LocalTree(b), mode: 'pull' });
    const controller = new AbortController();
    let ready = 0;
    const watches = [a, b].map((root) =>
      watchSync({
        satchel,
        workspace: WORKSPACE,
        tree: new LocalTree(root),
        label: root,
        signal: controller.signal,
        waitSeconds: 5,
        onReady: () => {
          ready++;
        },
      }),
    );
    stop = async () => {
      controller.abort();
      await Promise.all(watches);
      // Let the feeds' pending long polls end before the engine closes.
      await sleep(5500);
    };
    while (ready < 2) await sleep(50);
    await sleep(500);
    const latencies: number[] = [];
    for (let i = 0; i < edits; i++) {
      const content = `edit ${i} at ${Date.now()}\n`;
      const t0 = performance.now();
      await writeFile(join(a, 'dir-7', 'file-7.bin'), content);
      for (;;) {
        const seen = await readFile(join(b, 'dir-7', 'file-7.bin'), 'utf8').catch(() => '');
        if (seen === content) break;
        if (performance.now() - t0 > 10_000) throw new Error(`edit ${i} did not arrive in 10 s`);
        await sleep(2);
      }
      latencies.push(performance.now() - t0);
      await sleep(200);
    }
    return latencies;
  } finally {
    await stop();
    await dispose();
  }
}

export async function syncBench(config: BenchConfig): Promise<Check[]> {
  const files = envInt('BENCH_SYNC_FILES', 10_000);
  const totalMb = envInt('BENCH_SYNC_MB', 100);
  const tree = await freshDir(config, 'sync-tree');
  const bytes = await generateTree(tree, files, totalMb);
  console.log(`\nsync: ${files} files, ${(bytes / MIB).toFixed(0)} MiB in 100 folders`);

  // Initial push into a fresh engine, per round.
  const pushes: number[] = [];
  for (let round = 0; round < Math.min(3, config.rounds); round++) {
    const { satchel, dispose } = await freshSatchel(config, 'sync-push-data');
    const t = await seconds(async () => {
      const report = await syncOnce({
        satchel,
        workspace: WORKSPACE,
        tree: new LocalTree(tree),
        mode: 'push',
      });
      if (report.uploaded !== files) throw new Error(`pushed ${report.uploaded} of ${files}`);
    });
    pushes.push(t);
    await dispose();
    // The next round's push is an initial one again.
    execFileSync('rm', ['-rf', join(tree, '.satchel-sync')]);
  }
  console.log(
    `  initial push  median ${median(pushes).toFixed(1)} s   rounds: ${pushes.map((p) => p.toFixed(1)).join(', ')}`,
  );

  // No-change rescan vs rsync -a --dry-run to an identical copy.
  const { satchel, dispose } = await freshSatchel(config, 'sync-rescan-data');
  await syncOnce({ satchel, workspace: WORKSPACE, tree: new LocalTree(tree), mode: 'push' });
  const copy = await freshDir(config, 'sync-rsync-copy');
  execFileSync('rsync', ['-a', `${tree}/`, `${copy}/`]);
  const [rsyncTimes = [], syncTimes = []] = await interleave(config.rounds, [
    {
      label: 'rsync -a --dry-run',
      run: () =>
        seconds(() => void execFileSync('rsync', ['-a', '--dry-run', `${tree}/`, `${copy}/`])),
    },
    {
      label: 'satchel sync (no change)',
      run: () =>
        seconds(async () => {
          const r = await syncOnce({ satchel, workspace: WORKSPACE, tree: new LocalTree(tree) });
          if (r.uploaded + r.downloaded > 0) throw new Error('a no-change rescan moved files');
        }),
    },
  ]);
  // Rehydrate: a reset (empty) tree restored from the workspace, against `cp -a` of the tree.
  const [cpTimes = [], rehydrateTimes = []] = await interleave(config.rounds, [
    {
      label: 'cp -a',
      run: async () => {
        const target = await freshDir(config, 'sync-cp-copy');
        execFileSync('rm', ['-rf', target]);
        return seconds(() => void execFileSync('cp', ['-a', tree, target]));
      },
    },
    {
      label: 'satchel sync (rehydrate)',
      run: async () => {
        const target = await freshDir(config, 'sync-rehydrate');
        return seconds(async () => {
          const r = await syncOnce({ satchel, workspace: WORKSPACE, tree: new LocalTree(target) });
          if (r.downloaded !== files) throw new Error(`rehydrated ${r.downloaded} of ${files}`);
        });
      },
    },
  ]);
  await dispose();
  const rehydrate = median(rehydrateTimes);
  const rehydrateRatio = rehydrate / median(cpTimes);
  const rehydratePass = rehydrate <= TARGET_REHYDRATE_S && rehydrateRatio <= TARGET_REHYDRATE_RATIO;
  const ratio = median(syncTimes) / median(rsyncTimes);
  const fmt = (v: readonly number[]) => v.map((x) => `${(x * 1000).toFixed(0)} ms`).join(', ');
  console.log(
    `  rsync -a --dry-run        median ${(median(rsyncTimes) * 1000).toFixed(0)} ms   rounds: ${fmt(rsyncTimes)}`,
  );
  console.log(
    `  satchel sync (no change)  median ${(median(syncTimes) * 1000).toFixed(0)} ms   rounds: ${fmt(syncTimes)}`,
  );
  console.log(
    `  ratio ${ratio.toFixed(2)}×  target ≤ ${TARGET_RATIO}×  ${ratio <= TARGET_RATIO ? 'PASS' : 'MISS'}`,
  );

  const fmtS = (v: readonly number[]) => v.map((x) => `${x.toFixed(2)} s`).join(', ');
  console.log(
    `  cp -a                     median ${median(cpTimes).toFixed(2)} s   rounds: ${fmtS(cpTimes)}`,
  );
  console.log(
    `  satchel sync (rehydrate)  median ${rehydrate.toFixed(2)} s   rounds: ${fmtS(rehydrateTimes)}`,
  );
  console.log(
    `  ratio ${rehydrateRatio.toFixed(2)}×  target ≤ ${TARGET_REHYDRATE_S} s and ≤ ${TARGET_REHYDRATE_RATIO}×  ${rehydratePass ? 'PASS' : 'MISS'}`,
  );

  const latencies = await propagation(config, envInt('BENCH_SYNC_EDITS', 20));
  const sorted = [...latencies].sort((x, y) => x - y);
  const p50 = median(sorted);
  const p95 = percentile(sorted, 0.95);
  console.log(
    `  watch edit a → b  p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms (${sorted.length} edits)  target p95 < ${TARGET_P95_MS} ms`,
  );

  return [
    {
      benchmark: 'sync initial push',
      subject: `${median(pushes).toFixed(1)} s`,
      baseline: '-',
      measured: `${(bytes / MIB / median(pushes)).toFixed(1)} MiB/s`,
      target: '-',
      pass: null,
    },
    {
      benchmark: 'sync no-change rescan',
      subject: `${(median(syncTimes) * 1000).toFixed(0)} ms`,
      baseline: `${(median(rsyncTimes) * 1000).toFixed(0)} ms (rsync -a -n)`,
      measured: `${ratio.toFixed(2)}×`,
      target: `≤ ${TARGET_RATIO}×`,
      pass: ratio <= TARGET_RATIO,
    },
    {
      benchmark: 'sync rehydrate (empty tree)',
      subject: `${rehydrate.toFixed(2)} s`,
      baseline: `${median(cpTimes).toFixed(2)} s (cp -a)`,
      measured: `${rehydrateRatio.toFixed(2)}×`,
      target: `≤ ${TARGET_REHYDRATE_S} s, ≤ ${TARGET_REHYDRATE_RATIO}×`,
      pass: rehydratePass,
    },
    {
      benchmark: 'sync watch propagation',
      subject: `p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms`,
      baseline: '-',
      measured: `p95 ${p95.toFixed(0)} ms`,
      target: `p95 < ${TARGET_P95_MS} ms`,
      pass: p95 < TARGET_P95_MS,
    },
  ];
}
