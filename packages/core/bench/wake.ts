/**
 * Cross-process wake-up: a child process writes to the data directory (process A) while this
 * process follows the workspace's change feed with `listChanges(…, {waitSeconds})` (process B),
 * as SSE, MCP subscriptions and `sync --watch` do. Latency = the change's arrival in B minus the
 * write's acknowledgement in A (one machine, one clock). Baseline: B hears nothing from A and
 * relies on the 1 s re-check, as every process did before the signal file (`LocalSignals`).
 * BENCH_WAKE_WRITES writes per round (default 100) at random gaps of 10–100 ms.
 */
import { join } from 'node:path';
import { openSatchel } from '../src/index.js';
import { DataDirSignals } from '../src/store/data-dir-signals.js';
import { LocalSignals, type Signals } from '../src/store/signals.js';
import { startWakeChild, type WakeChild } from '../src/test-support/wake-child.js';
import {
  type BenchConfig,
  type Check,
  envInt,
  freshDir,
  median,
  percentile,
  sleep,
  WORKSPACE,
} from './util.js';

const TARGET_P95_MS = 100;
const now = (): number => performance.timeOrigin + performance.now();

/** A small seeded PRNG (mulberry32), so every round and side sees the same gaps. */
function gaps(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return 10 + (((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * 90;
  };
}

/** One round: `writes` writes in the child, followed here; latencies in ms, in seq order. */
async function round(
  data: string,
  child: WakeChild,
  writes: number,
  timerOnly: boolean,
): Promise<number[]> {
  const satchel = await openSatchel({
    data,
    ...(timerOnly ? { signals: new LocalSignals() } : {}),
  });
  try {
    const arrived = new Map<number, number>();
    const acked = new Map<number, number>();
    let cursor = (await satchel.getWorkspace(WORKSPACE)).seq;
    const last = cursor + writes;
    const follow = (async () => {
      while (cursor < last) {
        const page = await satchel.listChanges(WORKSPACE, { after: cursor, waitSeconds: 30 });
        const at = now();
        for (const event of page.events) if (!arrived.has(event.seq)) arrived.set(event.seq, at);
        cursor = page.cursor;
      }
    })();
    const gap = gaps(writes);
    for (let i = 0; i < writes; i++) {
      const answer = await child.send(`write /wake/${i % 10}.txt`);
      const [, seq, at] = answer.split(' ');
      if (!answer.startsWith('ok ')) throw new Error(`the writer said: ${answer}`);
      acked.set(Number(seq), Number(at));
      await sleep(gap());
    }
    await follow;
    return [...acked].map(([seq, at]) => (arrived.get(seq) ?? Number.NaN) - at);
  } finally {
    await satchel.close();
  }
}

const fmt = (sorted: readonly number[]): string =>
  `p50 ${median(sorted).toFixed(1)} ms, p95 ${percentile(sorted, 0.95).toFixed(1)} ms, ` +
  `max ${(sorted.at(-1) ?? Number.NaN).toFixed(1)} ms`;

/**
 * What a signal costs the committing process: CPU per publish (one line written, and the echo of
 * its own watch read back and dropped), each in its own event-loop turn as commits are, minus the
 * same loop on in-process signals. Microseconds.
 */
async function publishCost(file: string): Promise<{ perPublish: number; local: number }> {
  const cpu = async (signals: Signals, count: number): Promise<number> => {
    const start = process.cpuUsage();
    for (let i = 0; i < count; i++) {
      signals.publish({ kind: 'change', workspace: WORKSPACE });
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Let the last echoes arrive.
    await sleep(50);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / count;
  };
  const count = 20_000;
  const local = await cpu(new LocalSignals(), count);
  const signals = DataDirSignals.open(file);
  try {
    return { perPublish: await cpu(signals, count), local };
  } finally {
    await signals.close();
  }
}

export async function wakeLatency(config: BenchConfig): Promise<Check[]> {
  const writes = envInt('BENCH_WAKE_WRITES', 100);
  const rounds = Math.min(config.rounds, 3);
  console.log(
    `\nwake: write in a child process → listChanges long poll here, ${writes} writes per round, ` +
      `${rounds} rounds (signal file vs the 1 s re-check alone)`,
  );
  const data = await freshDir(config, 'wake');
  const setup = await openSatchel({ data });
  await setup.createWorkspace(WORKSPACE);
  await setup.close();
  const child = await startWakeChild(data, WORKSPACE);
  const p95 = { signal: [] as number[], timer: [] as number[] };
  const p50 = { signal: [] as number[], timer: [] as number[] };
  try {
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 === 0
        ? (['signal', 'timer'] as const)
        : (['timer', 'signal'] as const)) {
        const sorted = (await round(data, child, writes, side === 'timer')).sort((a, b) => a - b);
        p95[side].push(percentile(sorted, 0.95));
        p50[side].push(median(sorted));
        console.log(
          `  round ${r + 1} ${side === 'signal' ? 'signal file ' : 'timer only  '} ${fmt(sorted)}`,
        );
      }
    }
  } finally {
    await child.close();
  }
  const cost = await publishCost(join(data, 'cost-signals'));
  console.log(
    `  per commit: ${cost.perPublish.toFixed(1)} µs CPU per signal published through the file ` +
      `(in-process signals, same loop: ${cost.local.toFixed(1)} µs)`,
  );
  const signal = median(p95.signal);
  const timer = median(p95.timer);
  console.log(
    `  median of rounds: signal file p50 ${median(p50.signal).toFixed(1)} / p95 ${signal.toFixed(1)} ms; ` +
      `timer only p50 ${median(p50.timer).toFixed(1)} / p95 ${timer.toFixed(1)} ms`,
  );
  return [
    {
      benchmark: 'wake (long poll)',
      subject: `p95 ${signal.toFixed(1)} ms`,
      baseline: `p95 ${timer.toFixed(0)} ms (timer only)`,
      measured: `p95 ${signal.toFixed(1)} ms`,
      target: `p95 < ${TARGET_P95_MS} ms`,
      pass: signal < TARGET_P95_MS,
    },
    {
      benchmark: 'wake (publish CPU)',
      subject: `${cost.perPublish.toFixed(1)} µs`,
      baseline: `${cost.local.toFixed(1)} µs (in-process)`,
      measured: `+${(cost.perPublish - cost.local).toFixed(1)} µs per commit`,
      target: 'report',
      pass: null,
    },
  ];
}
