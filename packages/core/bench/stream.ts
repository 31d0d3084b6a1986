/** Streamed 1 GiB write: core writeFile(read stream) vs pipeline copy + fsync, in child processes. */
import { execFile } from 'node:child_process';
import { readdir, rm, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
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
/** Plain JavaScript on `dist/`, so that the children's RSS is not the TypeScript loader's. */
const CHILD = join(CORE_DIR, 'bench', 'stream-child.mjs');
const SRC = join(CORE_DIR, 'src');
const DIST = join(CORE_DIR, 'dist');
const RSS_LIMIT_MB = 150;
/** Sources tsconfig.json excludes from the build (a stand-in and a type check): no dist/ twin. */
const NOT_BUILT = new Set([
  join('sandbox', 'codesandbox-stand-in.ts'),
  join('sandbox', 'codesandbox-sdk.check.ts'),
]);

/** What stream-child.mjs prints (one JSON line). */
export interface StreamChildResult {
  readonly mode: 'raw' | 'core';
  readonly bytes: number;
  readonly seconds: number;
  /** Resident set size just before the timed part, KiB. */
  readonly rssBeforeKiB: number;
  /** Peak resident set size of the child (`process.resourceUsage().maxRSS`), KiB. */
  readonly maxRssKiB: number;
}

/**
 * Refuses to measure a `dist/` older than the sources it is built from (the children run on
 * dist): a stale build would be reported as the current engine. `pnpm bench` builds first;
 * `pnpm --filter @satchel/core bench` and `npx tsx bench/run.ts` do not.
 */
async function checkDistFresh(): Promise<void> {
  const stale: string[] = [];
  for (const entry of await readdir(SRC, { recursive: true, withFileTypes: true })) {
    const name = entry.name;
    if (!entry.isFile() || !name.endsWith('.ts') || name.endsWith('.d.ts')) continue;
    if (name.endsWith('.test.ts') || name.endsWith('.contract.ts')) continue;
    const source = join(entry.parentPath, name);
    const rel = relative(SRC, source);
    if (rel.startsWith('test-support') || NOT_BUILT.has(rel)) continue;
    const built = join(DIST, rel.replace(/\.ts$/, '.js'));
    const [src, out] = await Promise.all([stat(source), stat(built).catch(() => null)]);
    if (!out || out.mtimeMs < src.mtimeMs) stale.push(rel);
  }
  if (stale.length > 0) {
    const shown = stale.slice(0, 5).join(', ') + (stale.length > 5 ? ', …' : '');
    throw new Error(
      `dist/ is missing or older than src/ (${shown}); the stream benchmark runs on dist: ` +
        'build first with `pnpm --filter @satchel/core build` (or run `pnpm bench`)',
    );
  }
}

/** Writes `mb` MiB: one random MiB repeated (cheap, and nothing in it compresses or dedupes). */
/** Runs one child (`node bench/stream-child.mjs`) on a fresh directory. */
async function child(
  config: BenchConfig,
  mode: 'raw' | 'core',
  source: string,
  round: number,
): Promise<StreamChildResult> {
  const dir = await freshDir(config, `stream-${mode}-${round}`);
  try {
    const { stdout } = await run(process.execPath, [CHILD, mode, source, dir], {
      cwd: CORE_DIR,
      maxBuffer: MIB,
    });
    const line = stdout.trim().split('\n').at(-1) ?? '';
    return JSON.parse(line) as StreamChildResult;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function streamedWrite(config: BenchConfig): Promise<Check[]> {
  const mb = config.streamMb;
  console.log(
    `\n[5] streamed ${mb} MiB writeFile from fs.createReadStream, ` +
      `${config.streamRounds} rounds, each side in its own node process (core from dist/)`,
  );
  await checkDistFresh();
  const source = join(await freshDir(config, 'stream-src'), 'source.bin');
  try {
    await generateSource(source, mb);
    const results: Record<'raw' | 'core', StreamChildResult[]> = { raw: [], core: [] };
    const side = (mode: 'raw' | 'core') => ({
      label: mode,
      run: async (round: number) => {
        const result = await child(config, mode, source, round);
        results[mode].push(result);
        return result.bytes / MIB / result.seconds;
      },
    });
    const [raw = [], core = []] = await interleave(config.streamRounds, [
      side('raw'),
      side('core'),
    ]);
    const throughput = rateCheck(
      '5 streamed write',
      'MiB/s',
      { label: 'pipeline(createReadStream, createWriteStream) + fsync', values: raw },
      { label: 'core writeFile(createReadStream)', values: core },
      0.7,
    );
    const toMb = (kib: number): number => kib / 1024;
    const coreRss = results.core.map((r) => toMb(r.maxRssKiB));
    const rawRss = results.raw.map((r) => toMb(r.maxRssKiB));
    const grown = (r: StreamChildResult): number => toMb(r.maxRssKiB - r.rssBeforeKiB);
    const peak = Math.max(...coreRss);
    const show = (label: string, peaks: number[], rs: StreamChildResult[]): void => {
      const before = median(rs.map((r) => toMb(r.rssBeforeKiB)));
      const max = Math.max(...peaks);
      const growth = median(rs.map(grown));
      console.log(
        `  ${label} child maxRSS: median ${fmtRate(median(peaks))} MB, max ${fmtRate(max)} MB ` +
          `(RSS before the copy ${fmtRate(before)} MB, growth ${fmtRate(growth)} MB)`,
      );
    };
    show('raw ', rawRss, results.raw);
    show('core', coreRss, results.core);
    const pass = peak < RSS_LIMIT_MB;
    console.log(
      `  core peak RSS ${fmtRate(peak)} MB  target < ${RSS_LIMIT_MB} MB  ${pass ? 'PASS' : 'MISS'}`,
    );
    const rss: Check = {
      benchmark: '5 streamed write: peak RSS',
      subject: `${fmtRate(peak)} MB`,
      baseline: `${fmtRate(Math.max(...rawRss))} MB`,
      measured: `${fmtRate(peak)} MB`,
      target: `< ${RSS_LIMIT_MB} MB`,
      pass,
    };
    return [throughput, rss];
  } finally {
    await rm(source, { force: true });
  }
}
