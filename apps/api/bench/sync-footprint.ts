/**
 * The sync client's memory in a process of its own (issue 19: bounded under 300 MB for 100,000
 * files). The built CLI (`satchel sync`, apps/cli/dist) pushes the tree into an empty workspace,
 * rescans it with nothing changed and rehydrates an empty directory, each in a fresh process
 * that reports its peak RSS at exit (peak-rss.mjs). sync.ts's in-process figures also hold the
 * bench's own memory (the tree it generated, the manifests it compares), so they overstate it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url));
const PRELOAD = fileURLToPath(new URL('peak-rss.mjs', import.meta.url));

export interface Footprint {
  readonly mode: string;
  readonly seconds: number;
  readonly peakMib: number;
}

interface Target {
  readonly url: string;
  readonly key: string;
  readonly workspace: string;
}

/** One `satchel sync DIR --json` in a fresh process; fails unless it moved `expect` files. */
async function cliSync(
  target: Target,
  dir: string,
  mode: 'push' | 'two-way-safe',
  expect: { uploaded: number; downloaded: number },
): Promise<Footprint> {
  const peakFile = join(dir, '..', `peak-${process.pid}-${Date.now()}`);
  const start = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', PRELOAD, CLI, 'sync', dir, '-w', target.workspace, '--mode', mode, '--json'],
    {
      env: {
        ...process.env,
        SATCHEL_URL: target.url,
        SATCHEL_TOKEN: target.key,
        BENCH_PEAK_FILE: peakFile,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout?.on('data', (piece: Buffer) => {
    out += piece.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const seconds = (performance.now() - start) / 1000;
  if (code !== 0) throw new Error(`satchel sync --mode ${mode} exited ${code}`);
  const summary = JSON.parse(out) as { uploaded: number; downloaded: number };
  if (summary.uploaded !== expect.uploaded || summary.downloaded !== expect.downloaded) {
    throw new Error(`satchel sync --mode ${mode}: ${out}`);
  }
  const peakKib = Number(await readFile(peakFile, 'utf8'));
  await rm(peakFile, { force: true });
  return { mode, seconds, peakMib: peakKib / 1024 };
}

/**
 * Push `tree` (of `files` files, no `.satchel-sync` state yet) into `target`'s empty workspace,
 * wait for `pushed` (the server's indexer), rescan it, and rehydrate `empty`; the peak RSS and
 * wall time of each CLI process.
 */
export async function syncFootprint(
  target: Target,
  tree: string,
  empty: string,
  files: number,
  pushed: () => Promise<void>,
): Promise<Footprint[]> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run pnpm build first`);
  const push = await cliSync(target, tree, 'push', { uploaded: files, downloaded: 0 });
  await pushed();
  const rescan = await cliSync(target, tree, 'two-way-safe', { uploaded: 0, downloaded: 0 });
  const rehydrate = await cliSync(target, empty, 'two-way-safe', {
    uploaded: 0,
    downloaded: files,
  });
  return [push, { ...rescan, mode: 'rescan' }, { ...rehydrate, mode: 'rehydrate' }];
}
