/**
 * `tsx bench/sync.ts`: sync over HTTP (issue 19) — the client's `RemoteSatchel` against a
 * Satchel server on 127.0.0.1 in a process of its own (sync-server.ts), on the tree of core's
 * sync benchmark (default 10,000 files, 100 MiB in 100 folders, the same bytes on every run).
 * Initial push into a fresh server, one by one and with batch transfer; a no-change rescan
 * against `rsync -a --dry-run` to an identical copy; rehydrating an empty tree against `cp -a`
 * (and `cp -a` followed by `sync -f`, the copy made durable). Rescans and rehydrates start once
 * the server has indexed the pushed files.
 * Every rehydrated tree is checked byte-identical (a manifest of SHA-256 on both sides, outside
 * the timing). Rounds interleaved, side order rotated. `BENCH_SYNC_BATCH` `1`/`0` runs only one transfer;
 * `BENCH_CPU_PROF=<dir>` writes CPU profiles of the server processes there, and of this (the
 * client's) process during each push and rehydrate.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { LocalTree, RemoteSatchel, syncOnce } from '@satchel/core';
import { API_DIR } from './servers.js';
import { syncFootprint } from './sync-footprint.js';
import { generateTree, manifest } from './sync-tree.js';

const MIB = 1024 * 1024;
/**
 * Nothing the rounds make (data directories, copies, rehydrated trees) is removed before the end:
 * on ext4, creating thousands of files in the seconds after thousands were deleted costs many
 * times the system time (10,000 creates: 0.12 s, and 2.5 s some seconds after a delete), which
 * landed on whichever side ran next.
 */
const TMP = join(API_DIR, '.bench-tmp', `sync-${process.pid}`);
const WORKSPACE = 'bench';

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name}: positive integer`);
  return value;
}

const ROUNDS = envInt('BENCH_ROUNDS', 3);
const FILES = envInt('BENCH_SYNC_FILES', 10_000);
const TOTAL_MB = envInt('BENCH_SYNC_MB', 100);
const PROFILE = process.env.BENCH_CPU_PROF;
const TARGET_PUSH_S = 4;
const TARGET_REHYDRATE_S = 3;
const TARGET_REHYDRATE_RATIO = 1.5;
const TARGET_RESCAN_RATIO = 1.0;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
};

interface Server {
  readonly satchel: RemoteSatchel;
  readonly url: string;
  readonly key: string;
  stop(): Promise<void>;
}

/** Peak resident memory of a process (Linux: VmHWM), in KiB; 0 where it cannot be read. */
function peakKib(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

let serverPeakKib = 0;
let servers = 0;
/** A server on a fresh data directory, with the bench workspace. */
async function startServer(): Promise<Server> {
  const data = join(TMP, `data-${++servers}`);
  const script = fileURLToPath(new URL('sync-server.ts', import.meta.url));
  const prof = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...prof, '--import', 'tsx', script, data], {
    cwd: API_DIR,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  const { url, key } = JSON.parse(line) as { url: string; key: string };
  const satchel = new RemoteSatchel({ url, token: key });
  await satchel.createWorkspace(WORKSPACE);
  return {
    satchel,
    url,
    key,
    stop: async () => {
      serverPeakKib = Math.max(serverPeakKib, peakKib(child.pid));
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      // Its data directory stays until the end (see TMP).
    },
  };
}

/**
 * Waits (a minute at most) for the server to index what was pushed: its indexer reads every file,
 * and would compete with the rounds that follow. A sandbox's reset comes later than that.
 */
async function indexed(satchel: RemoteSatchel): Promise<void> {
  const until = Date.now() + 60_000;
  while ((await satchel.searchStatus(WORKSPACE)).lag > 0 && Date.now() < until) await delay(100);
}

let profiles = 0;
/** `fn` under this process's CPU profiler when BENCH_CPU_PROF is set: the client's share. */
async function profiled<T>(label: string, fn: () => Promise<T>): Promise<T> {
  if (!PROFILE) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    const file = join(PROFILE, `client-${label}-${++profiles}.cpuprofile`);
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
  }
}

/** Peak RSS of this process (the client) while each labelled phase ran, sampled every 50 ms. */
const clientPeak = new Map<string, number>();

async function seconds(fn: () => Promise<unknown>, label?: string): Promise<number> {
  const phase = label?.replace(/-\d+$/, '');
  const sample = () => {
    if (phase === undefined) return;
    clientPeak.set(phase, Math.max(clientPeak.get(phase) ?? 0, process.memoryUsage().rss));
  };
  const sampler = setInterval(sample, 50);
  const t0 = performance.now();
  try {
    await (label ? profiled(label, fn) : fn());
  } finally {
    clearInterval(sampler);
    sample();
  }
  return (performance.now() - t0) / 1000;
}

interface Side {
  readonly label: string;
  run(): Promise<number>;
}

async function interleave(rounds: number, sides: readonly Side[]): Promise<number[][]> {
  const values: number[][] = sides.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < sides.length; k++) {
      const index = (round + k) % sides.length;
      const side = sides[index];
      // Each run starts on a quiet disk: what the one before wrote is on it already.
      execFileSync('sync');
      if (side) values[index]?.push(await side.run());
    }
  }
  return values;
}

function modes(): boolean[] {
  const raw = process.env.BENCH_SYNC_BATCH;
  return raw === '1' ? [true] : raw === '0' ? [false] : [false, true];
}

const name = (batch: boolean) => (batch ? 'batch' : 'one by one');
const fmt = (v: readonly number[]) => v.map((x) => x.toFixed(2)).join(', ');

async function measure(): Promise<void> {
  const tree = join(TMP, 'tree');
  const bytes = await generateTree(tree, FILES, TOTAL_MB);
  const load = (await import('node:os')).loadavg()[0]?.toFixed(1);
  console.log(
    `sync over HTTP — ${new Date().toISOString()}, Node ${process.version}, load ${load}: ` +
      `${FILES} files, ${(bytes / MIB).toFixed(0)} MiB, ${ROUNDS} rounds`,
  );
  const rows: string[] = [];
  const report = (what: string, values: readonly number[], extra = '') => {
    const line = `${what.padEnd(36)} median ${median(values).toFixed(2)} s  rounds: ${fmt(values)}${extra}`;
    console.log(`  ${line}`);
    rows.push(line);
  };

  const push = await interleave(
    ROUNDS,
    modes().map((batchTransfer) => ({
      label: `push (${name(batchTransfer)})`,
      run: async () => {
        const server = await startServer();
        try {
          return await seconds(
            async () => {
              const r = await syncOnce({
                satchel: server.satchel,
                workspace: WORKSPACE,
                tree: new LocalTree(tree),
                mode: 'push',
                batchTransfer,
              });
              if (r.uploaded !== FILES) throw new Error(`pushed ${r.uploaded} of ${FILES}`);
            },
            `push-${name(batchTransfer).replace(/ /g, '-')}`,
          );
        } finally {
          await server.stop();
          execFileSync('rm', ['-rf', join(tree, '.satchel-sync')]);
        }
      },
    })),
  );
  for (const [i, batch] of modes().entries()) {
    const v = push[i] ?? [];
    report(
      `initial push (${name(batch)})`,
      v,
      `  target ≤ ${TARGET_PUSH_S} s ${median(v) <= TARGET_PUSH_S ? 'PASS' : 'MISS'}`,
    );
  }

  const server = await startServer();
  try {
    await syncOnce({
      satchel: server.satchel,
      workspace: WORKSPACE,
      tree: new LocalTree(tree),
      mode: 'push',
    });
    await indexed(server.satchel);
    const copy = join(TMP, 'rsync-copy');
    execFileSync('rsync', ['-a', `${tree}/`, `${copy}/`]);
    const [rsync = [], rescan = []] = await interleave(ROUNDS, [
      {
        label: 'rsync -a --dry-run',
        run: () =>
          seconds(
            async () => void execFileSync('rsync', ['-a', '--dry-run', `${tree}/`, `${copy}/`]),
          ),
      },
      {
        label: 'no-change rescan',
        run: () =>
          seconds(async () => {
            const r = await syncOnce({
              satchel: server.satchel,
              workspace: WORKSPACE,
              tree: new LocalTree(tree),
            });
            if (r.uploaded + r.downloaded > 0) throw new Error('a no-change rescan moved files');
          }, 'rescan'),
      },
    ]);
    const ratio = median(rescan) / median(rsync);
    report('rsync -a --dry-run', rsync);
    report(
      'no-change rescan',
      rescan,
      `  ${ratio.toFixed(2)}× target ≤ ${TARGET_RESCAN_RATIO}× ${ratio <= TARGET_RESCAN_RATIO ? 'PASS' : 'MISS'}`,
    );

    let n = 0;
    const [cp = [], cpSync = [], ...rehydrate] = await interleave(ROUNDS, [
      {
        label: 'cp -a',
        run: () =>
          seconds(async () => void execFileSync('cp', ['-a', tree, join(TMP, `cp-${++n}`)])),
      },
      {
        // What a copy made durable costs (syncfs): a rehydrate fsyncs each file before it
        // records it.
        label: 'cp -a, then sync -f',
        run: () =>
          seconds(async () => {
            const copy = join(TMP, `cp-${++n}`);
            execFileSync('cp', ['-a', tree, copy]);
            execFileSync('sync', ['-f', copy]);
          }),
      },
      ...modes().map((batchTransfer) => ({
        label: `rehydrate (${name(batchTransfer)})`,
        run: async () => {
          const target = join(TMP, `rehydrate-${++n}`);
          const t = await seconds(
            async () => {
              const r = await syncOnce({
                satchel: server.satchel,
                workspace: WORKSPACE,
                tree: new LocalTree(target),
                batchTransfer,
              });
              if (r.downloaded !== FILES) throw new Error(`rehydrated ${r.downloaded} of ${FILES}`);
            },
            `rehydrate-${name(batchTransfer).replace(/ /g, '-')}`,
          );
          // Outside the timing: the rehydrated tree is the pushed one, byte for byte.
          const [want, got] = await Promise.all([manifest(tree), manifest(target)]);
          if (JSON.stringify([...want]) !== JSON.stringify([...got])) {
            throw new Error(
              `the rehydrated tree differs from the pushed one (${name(batchTransfer)})`,
            );
          }
          return t;
        },
      })),
    ]);
    report('cp -a', cp);
    report('cp -a, then sync -f', cpSync);
    for (const [i, batch] of modes().entries()) {
      const v = rehydrate[i] ?? [];
      const r = median(v) / median(cp);
      const pass = median(v) <= TARGET_REHYDRATE_S && r <= TARGET_REHYDRATE_RATIO;
      report(
        `rehydrate (${name(batch)})`,
        v,
        `  ${r.toFixed(2)}× target ≤ ${TARGET_REHYDRATE_S} s and ≤ ${TARGET_REHYDRATE_RATIO}× ${pass ? 'PASS' : 'MISS'}` +
          ` (${(median(v) / median(cpSync)).toFixed(2)}× cp -a, then sync -f)`,
      );
    }
  } finally {
    await server.stop();
  }
  const mib = (bytes: number) => `${(bytes / MIB).toFixed(0)} MiB`;
  const phases = [...clientPeak].map(([phase, rss]) => `${phase} ${mib(rss)}`).join(', ');
  console.log(`  peak RSS in this process: client ${phases}; servers ${mib(serverPeakKib * 1024)}`);

  // The CLI in processes of its own: what a sandbox running `satchel sync` holds.
  execFileSync('rm', ['-rf', join(tree, '.satchel-sync')]);
  const empty = join(TMP, 'footprint-rehydrate');
  await mkdir(empty);
  const fresh = await startServer();
  try {
    const steps = await syncFootprint({ ...fresh, workspace: WORKSPACE }, tree, empty, FILES, () =>
      indexed(fresh.satchel),
    );
    const line = steps
      .map((s) => `${s.mode} ${s.peakMib.toFixed(0)} MiB (${s.seconds.toFixed(2)} s)`)
      .join(', ');
    const push = steps[0]?.peakMib ?? Number.NaN;
    console.log(
      `  peak RSS of \`satchel sync\` in its own process: ${line}; push target < 300 MB ` +
        `${push * MIB <= 300e6 ? 'PASS' : 'MISS'}`,
    );
  } finally {
    await fresh.stop();
  }
}

await mkdir(TMP, { recursive: true });
try {
  await measure();
} finally {
  await rm(TMP, { recursive: true, force: true });
}
