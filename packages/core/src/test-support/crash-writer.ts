/** Child of crash.test.ts: writes until killed, printing `start`/`ack` lines around each write. */
import { createHash } from 'node:crypto';
import { writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isSatchelError } from '@satchel/client/errors.js';
import { openSatchel } from '../engine/open.js';

export const CRASH_WORKSPACE = 'ws';

/** Stops on its own after this long, so a child the test failed to kill does not run forever. */
const MAX_RUN_MS = 60_000;
const KIB = 1024;

/** A small seeded PRNG (mulberry32): uniform floats in [0, 1), reproducible from the seed. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Content of the `generation`-th write of path number `n` in the run with `seed`. */
function content(seed: number, n: number, generation: number, large: boolean): Buffer {
  const random = mulberry32(
    seed ^ Math.imul(n + 1, 0x9e3779b1) ^ Math.imul(generation + 1, 0x85ebca6b),
  );
  const size = large
    ? 100 * KIB + Math.floor(random() * 300 * KIB)
    : KIB + Math.floor(random() * 15 * KIB);
  const words = new Uint32Array(Math.ceil(size / 4));
  for (let i = 0; i < words.length; i++) words[i] = Math.floor(random() * 2 ** 32);
  return Buffer.from(words.buffer, 0, size);
}

/** One whole line to stdout, synchronously: it is out before the next write starts. */
function report(line: string): void {
  const data = Buffer.from(`${line}\n`);
  let offset = 0;
  while (offset < data.byteLength) {
    try {
      offset += writeSync(1, data, offset);
    } catch (error) {
      // A non-blocking pipe that is momentarily full: try again.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    }
  }
}

async function run(dataDir: string, seed: number): Promise<void> {
  const satchel = await openSatchel({ data: dataDir });
  try {
    await satchel.getWorkspace(CRASH_WORKSPACE);
  } catch (error) {
    if (!isSatchelError(error, 'NOT_FOUND')) throw error;
    await satchel.createWorkspace(CRASH_WORKSPACE);
  }
  const random = mulberry32(seed);
  const written: number[] = [];
  const generations = new Map<number, number>();
  let fresh = 0;
  let index = 0;
  const deadline = Date.now() + MAX_RUN_MS;
  while (Date.now() < deadline) {
    // Every write of the previous group is acked here, so any written path may be rewritten.
    const group: number[] = [];
    const size = random() < 0.25 ? 4 : 1;
    while (group.length < size) {
      const n =
        written.length > 0 && random() < 0.3
          ? written[Math.floor(random() * written.length)]
          : fresh++;
      if (n !== undefined && !group.includes(n)) group.push(n);
    }
    await Promise.all(
      group.map(async (n) => {
        const generation = generations.get(n) ?? 0;
        generations.set(n, generation + 1);
        if (generation === 0) written.push(n);
        // Every 7th write goes to the blob store, starting with the first: each writer's
        // first write is one, so every round of the crash test puts one at risk.
        const large = index++ % 7 === 0;
        const data = content(seed, n, generation, large);
        const path = `/f/${n}.bin`;
        const sha = createHash('sha256').update(data).digest('hex');
        report(`start ${path} ${sha}`);
        await satchel.writeFile(CRASH_WORKSPACE, path, data);
        report(`ack ${path} ${sha}`);
      }),
    );
  }
  await satchel.close();
}

/** With `--wait`, the writer loads, then waits for a line on stdin before it opens the data dir. */
async function waitForGo(): Promise<void> {
  for await (const _line of process.stdin) return;
  throw new Error('stdin closed before the go signal');
}

// Usage: node --import tsx crash-writer.ts <dataDir> <seed> [--wait]
const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(resolve(entry)).href) {
  const [dataDir, seed, flag] = process.argv.slice(2);
  if (
    dataDir === undefined ||
    seed === undefined ||
    !/^\d+$/.test(seed) ||
    (flag !== undefined && flag !== '--wait')
  ) {
    process.stderr.write('usage: crash-writer <dataDir> <seed> [--wait]\n');
    process.exit(2);
  }
  const start = flag === '--wait' ? waitForGo() : Promise.resolve();
  start
    .then(() => run(dataDir, Number(seed)))
    .catch((error: unknown) => {
      process.stderr.write(
        `crash-writer failed: ${error instanceof Error ? error.stack : String(error)}\n`,
      );
      process.exit(1);
    });
}
