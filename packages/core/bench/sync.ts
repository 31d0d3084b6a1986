/**
 * Sync on a generated tree (default 10,000 files, ~100 MB, deterministic): initial push time;
 * a no-change rescan against `rsync -a --dry-run` of the same tree to an identical copy (rsync
 * compares size and mtime too, so both sides do the same work: a stat walk); one-file edit
 * propagation between two watched trees through the engine, p50/p95; rehydrating an empty tree
 * from the workspace against `cp -a` of the same tree. Push and rehydrate run one by one and
 * with batch transfer (`BENCH_SYNC_BATCH`), rounds interleaved; the table shows sync's default.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { LocalTree, syncOnce } from '../src/index.js';
import { generateTree, propagation } from './sync-tree.js';
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
  WORKSPACE,
} from './util.js';

const TARGET_RATIO = 1.0;
const TARGET_REHYDRATE_S = 3;
const TARGET_REHYDRATE_RATIO = 1.5;
const TARGET_P95_MS = 500;

/** The transfer sync uses on the embedded engine when not told (`SyncOptions.batchTransfer`). */
const DEFAULT_BATCH_PUSH = false;
const DEFAULT_BATCH_REHYDRATE = true;

/** `BENCH_SYNC_BATCH`: `1` batch transfer only, `0` one by one only, unset both. */
function batchModes(): boolean[] {
  const raw = process.env.BENCH_SYNC_BATCH;
  if (raw === '1') return [true];
  if (raw === '0') return [false];
  return [false, true];
}

function modeName(batchTransfer: boolean): string {
  return batchTransfer ? 'batch' : 'one by one';
}

export async function syncBench(config: BenchConfig): Promise<Check[]> {
  const files = envInt('BENCH_SYNC_FILES', 10_000);
  const totalMb = envInt('BENCH_SYNC_MB', 100);
  const tree = await freshDir(config, 'sync-tree');
  const bytes = await generateTree(tree, files, totalMb);
  console.log(`\nsync: ${files} files, ${(bytes / MIB).toFixed(0)} MiB in 100 folders`);

  // Initial push into a fresh engine, per round, one by one and in batches (side order rotated).
  const modes = batchModes();
  const pushSides = modes.map((batchTransfer) => ({
    label: `push (${modeName(batchTransfer)})`,
    run: async () => {
      const { satchel, dispose } = await freshSatchel(config, 'sync-push-data');
      try {
        return await seconds(async () => {
          const report = await syncOnce({
            satchel,
            workspace: WORKSPACE,
            tree: new LocalTree(tree),
            mode: 'push',
            batchTransfer,
          });
          if (report.uploaded !== files) throw new Error(`pushed ${report.uploaded} of ${files}`);
        });
      } finally {
        await dispose();
        // The next round's push is an initial one again.
        execFileSync('rm', ['-rf', join(tree, '.satchel-sync')]);
      }
    },
  }));
  const pushRounds = await interleave(Math.min(3, config.rounds), pushSides);
  for (const [i, batchTransfer] of modes.entries()) {
    const rounds = pushRounds[i] ?? [];
    console.log(
      `  initial push (${modeName(batchTransfer)})  median ${median(rounds).toFixed(2)} s   rounds: ${rounds.map((p) => p.toFixed(2)).join(', ')}`,
    );
  }
  const pushes = pushRounds[modes.indexOf(DEFAULT_BATCH_PUSH)] ?? pushRounds[0] ?? [];

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
  const [cpTimes = [], ...rehydrateRounds] = await interleave(config.rounds, [
    {
      label: 'cp -a',
      run: async () => {
        const target = await freshDir(config, 'sync-cp-copy');
        execFileSync('rm', ['-rf', target]);
        return seconds(() => void execFileSync('cp', ['-a', tree, target]));
      },
    },
    ...modes.map((batchTransfer) => ({
      label: `satchel sync (rehydrate, ${modeName(batchTransfer)})`,
      run: async () => {
        const target = await freshDir(config, 'sync-rehydrate');
        return seconds(async () => {
          const r = await syncOnce({
            satchel,
            workspace: WORKSPACE,
            tree: new LocalTree(target),
            batchTransfer,
          });
          if (r.downloaded !== files) throw new Error(`rehydrated ${r.downloaded} of ${files}`);
        });
      },
    })),
  ]);
  const rehydrateTimes =
    rehydrateRounds[modes.indexOf(DEFAULT_BATCH_REHYDRATE)] ?? rehydrateRounds[0] ?? [];
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
  for (const [i, batchTransfer] of modes.entries()) {
    const rounds = rehydrateRounds[i] ?? [];
    console.log(
      `  satchel sync (rehydrate, ${modeName(batchTransfer)})  median ${median(rounds).toFixed(2)} s   rounds: ${fmtS(rounds)}`,
    );
  }
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
