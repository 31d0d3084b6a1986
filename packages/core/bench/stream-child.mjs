/**
 * One streamed write in isolation, so that its peak RSS is the copy's alone. stream.ts runs it
 * as plain JavaScript, `node bench/stream-child.mjs raw|core <source file> <empty directory>`:
 * under a TypeScript loader (tsx) the process would start ~44 MB heavier. Core comes from
 * `../dist` (build it first: `pnpm --filter @satchel/core build`; `pnpm bench` does).
 *
 * raw:  pipeline(createReadStream(source), createWriteStream(<dir>/copy.bin)), then fsync of the
 *       file and of the directory.
 * core: openSatchel({ data: <dir> }), then writeFile('bench', '/big.bin', createReadStream(source)).
 *
 * Prints one line of JSON (StreamChildResult in stream.ts): { mode, bytes, seconds, rssBeforeKiB,
 * maxRssKiB }, where rssBeforeKiB is the RSS just before the timed part and maxRssKiB is
 * process.resourceUsage().maxRSS at the end.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { openSatchel } from '../dist/index.js';

async function fsyncPath(path) {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

const elapsed = (start) => Number(process.hrtime.bigint() - start) / 1e9;
const rssKiB = () => Math.round(process.memoryUsage().rss / 1024);

async function raw(source, dir) {
  const target = join(dir, 'copy.bin');
  const rssBeforeKiB = rssKiB();
  const start = process.hrtime.bigint();
  await pipeline(createReadStream(source), createWriteStream(target));
  await fsyncPath(target);
  await fsyncPath(dir);
  const seconds = elapsed(start);
  return { bytes: (await stat(target)).size, seconds, rssBeforeKiB };
}

async function core(source, dir) {
  const satchel = await openSatchel({ data: dir });
  try {
    await satchel.createWorkspace('bench');
    const rssBeforeKiB = rssKiB();
    const start = process.hrtime.bigint();
    const info = await satchel.writeFile('bench', '/big.bin', createReadStream(source));
    return { bytes: info.size, seconds: elapsed(start), rssBeforeKiB };
  } finally {
    await satchel.close();
  }
}

async function main() {
  const [mode, source, dir] = process.argv.slice(2);
  if ((mode !== 'raw' && mode !== 'core') || !source || !dir) {
    throw new Error('usage: stream-child.mjs raw|core <source file> <empty directory>');
  }
  const expected = (await stat(source)).size;
  const result = mode === 'raw' ? await raw(source, dir) : await core(source, dir);
  if (result.bytes !== expected) {
    throw new Error(`${mode} stored ${result.bytes} bytes, expected ${expected}`);
  }
  const maxRssKiB = process.resourceUsage().maxRSS;
  process.stdout.write(`${JSON.stringify({ mode, ...result, maxRssKiB })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
