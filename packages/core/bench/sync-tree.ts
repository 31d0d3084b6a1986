/** The generated tree of the sync benchmark, and one-file edit propagation between two watches. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalTree, syncOnce, watchSync } from '../src/index.js';
import { type BenchConfig, envInt, freshDir, freshSatchel, MIB, sleep, WORKSPACE } from './util.js';

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
export async function generateTree(root: string, count: number, totalMb: number): Promise<number> {
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

export async function propagation(config: BenchConfig, edits: number): Promise<number[]> {
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
