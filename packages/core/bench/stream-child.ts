/** One streamed write in isolation (`raw` copy + fsync, or `core` writeFile); prints JSON. */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { openSatchel } from '../src/index.js';

export interface StreamChildResult {
  readonly mode: 'raw' | 'core';
  readonly bytes: number;
  readonly seconds: number;
  /** Resident set size just before the timed part, KiB. */
  readonly rssBeforeKiB: number;
  /** Peak resident set size of this process (`process.resourceUsage().maxRSS`), KiB. */
  readonly maxRssKiB: number;
}

async function fsyncPath(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

function elapsed(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

async function main(): Promise<void> {
  const [mode, source, dir] = process.argv.slice(2);
  if ((mode !== 'raw' && mode !== 'core') || !source || !dir) {
    throw new Error('usage: stream-child.ts raw|core <source file> <empty directory>');
  }
  const expected = (await stat(source)).size;
  let bytes = 0;
  let secs = 0;
  let rssBeforeKiB = 0;
  if (mode === 'raw') {
    const target = join(dir, 'copy.bin');
    rssBeforeKiB = Math.round(process.memoryUsage().rss / 1024);
    const start = process.hrtime.bigint();
    await pipeline(createReadStream(source), createWriteStream(target));
    await fsyncPath(target);
    await fsyncPath(dir);
    secs = elapsed(start);
    bytes = (await stat(target)).size;
  } else {
    const satchel = await openSatchel({ data: dir });
    try {
      await satchel.createWorkspace('bench');
      rssBeforeKiB = Math.round(process.memoryUsage().rss / 1024);
      const start = process.hrtime.bigint();
      const info = await satchel.writeFile('bench', '/big.bin', createReadStream(source));
      secs = elapsed(start);
      bytes = info.size;
    } finally {
      await satchel.close();
    }
  }
  if (bytes !== expected) throw new Error(`${mode} stored ${bytes} bytes, expected ${expected}`);
  const result: StreamChildResult = {
    mode,
    bytes,
    seconds: secs,
    rssBeforeKiB,
    maxRssKiB: process.resourceUsage().maxRSS,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
