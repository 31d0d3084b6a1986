/**
 * Content in S3: a streamed put and get of BENCH_STREAM_MB (default 1 GiB) through S3BlobStore,
 * FsBlobStore, and a plain `@aws-sdk/lib-storage` upload of the same file to the same server
 * (the S3 stand-in of test-support on 127.0.0.1), each in its own child process, rounds
 * alternating; then small puts at sizes around the inline threshold, S3 vs directory.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FsBlobStore } from '../src/store/fs-blob-store.js';
import { S3BlobStore } from '../src/store/s3-blob-store.js';
import { startS3Server, TEST_S3_CREDENTIALS } from '../src/test-support/s3-server.js';
import {
  type BenchConfig,
  type Check,
  CORE_DIR,
  fmtRate,
  freshDir,
  generateSource,
  interleave,
  MIB,
  median,
  rateCheck,
} from './util.js';

const run = promisify(execFile);
const CHILD = join(CORE_DIR, 'bench', 's3-child.mjs');
const RSS_LIMIT_MB = 150;

interface ChildResult {
  readonly mode: 'plain' | 's3' | 'dir';
  readonly bytes: number;
  readonly putSeconds: number;
  readonly getSeconds: number;
  readonly maxRssKiB: number;
}

export async function s3Bench(config: BenchConfig): Promise<Check[]> {
  const mb = config.streamMb;
  console.log(
    `\n[11] S3 content: ${mb} MiB streamed put and get, ${config.streamRounds} rounds, ` +
      'S3BlobStore vs plain lib-storage Upload vs FsBlobStore, each in its own node process',
  );
  const root = await freshDir(config, 's3');
  const server = await startS3Server(join(root, 'server'));
  const source = join(root, 'source.bin');
  try {
    await generateSource(source, mb);
    const results: Record<ChildResult['mode'], ChildResult[]> = { plain: [], s3: [], dir: [] };
    const side = (mode: ChildResult['mode']) => ({
      label: mode,
      run: async (round: number) => {
        const dir = join(root, `dir-${round}`);
        const { stdout } = await run(
          process.execPath,
          [CHILD, mode, source, server.endpoint, server.bucket, dir],
          { cwd: CORE_DIR, maxBuffer: MIB },
        );
        const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ChildResult;
        results[mode].push(result);
        await rm(dir, { recursive: true, force: true });
        // The server's copies go too, so the disk holds at most one round's.
        await rm(join(root, 'server', 'objects'), { recursive: true, force: true });
        await rm(join(root, 'server', 'uploads'), { recursive: true, force: true });
        await import('node:fs/promises').then((fs) =>
          Promise.all([
            fs.mkdir(join(root, 'server', 'objects'), { recursive: true }),
            fs.mkdir(join(root, 'server', 'uploads'), { recursive: true }),
          ]),
        );
        return result.bytes / MIB / result.putSeconds;
      },
    });
    const [plain = [], s3 = [], dir = []] = await interleave(config.streamRounds, [
      side('plain'),
      side('s3'),
      side('dir'),
    ]);
    const put = rateCheck(
      '11 S3 streamed put',
      'MiB/s',
      { label: 'plain lib-storage Upload (no hashing, no publish)', values: plain },
      { label: 'S3BlobStore.put (hash, Content-MD5, copy to hash key)', values: s3 },
      0.8,
    );
    const rate = (r: ChildResult, key: 'putSeconds' | 'getSeconds') => r.bytes / MIB / r[key];
    console.log(
      `  FsBlobStore.put median ${fmtRate(median(dir))} MiB/s; get (verified) S3 ` +
        `${fmtRate(median(results.s3.map((r) => rate(r, 'getSeconds'))))} MiB/s, directory ` +
        `${fmtRate(median(results.dir.map((r) => rate(r, 'getSeconds'))))} MiB/s`,
    );
    const rss = (mode: ChildResult['mode']) =>
      Math.max(...results[mode].map((r) => r.maxRssKiB / 1024));
    console.log(
      `  peak RSS: S3BlobStore ${fmtRate(rss('s3'))} MB, plain ${fmtRate(rss('plain'))} MB, ` +
        `directory ${fmtRate(rss('dir'))} MB  target < ${RSS_LIMIT_MB} MB`,
    );
    const peak = rss('s3');
    const memory: Check = {
      benchmark: '11 S3 put+get: peak RSS',
      subject: `${fmtRate(peak)} MB`,
      baseline: `${fmtRate(rss('plain'))} MB`,
      measured: `${fmtRate(peak)} MB`,
      target: `< ${RSS_LIMIT_MB} MB`,
      pass: peak < RSS_LIMIT_MB,
    };
    await smallPuts(root, server.endpoint, server.bucket);
    return [put, memory];
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** Milliseconds per put at sizes around the inline threshold: what inlining saves. */
async function smallPuts(root: string, endpoint: string, bucket: string): Promise<void> {
  const s3 = new S3BlobStore({
    bucket,
    prefix: 'small',
    endpoint,
    forcePathStyle: true,
    credentials: TEST_S3_CREDENTIALS,
  });
  const fs = await FsBlobStore.open(join(root, 'small'));
  const count = 40;
  console.log(`  small puts (${count} distinct each, ms per put, median of 3):`);
  for (const size of [4 * 1024, 64 * 1024, 256 * 1024, 1024 * 1024]) {
    const time = async (store: S3BlobStore | FsBlobStore) => {
      const runs: number[] = [];
      for (let r = 0; r < 3; r++) {
        const start = process.hrtime.bigint();
        for (let i = 0; i < count; i++) {
          const data = randomBytes(size);
          await store.put(
            (async function* () {
              yield data;
            })(),
          );
        }
        runs.push(Number(process.hrtime.bigint() - start) / 1e6 / count);
      }
      return median(runs);
    };
    const [onS3, onDisk] = [await time(s3), await time(fs)];
    console.log(
      `    ${String(size / 1024).padStart(5)} KiB: S3 ${onS3.toFixed(2)} ms, directory ${onDisk.toFixed(2)} ms`,
    );
  }
  s3.close();
}
