/**
 * Sync into a CodeSandbox sandbox (issue 19, item 4): rehydrating a new sandbox from a workspace
 * through the real SDK, one file at a time against the SDK's `fs.batchWrite` (one zip and one
 * shell per group of 512 files), rounds interleaved. The sandbox is the wire stand-in
 * (test-support/codesandbox-wire.ts), which answers each call after `BENCH_CSB_LATENCY_MS`
 * (default 5 ms; a real VM is further away) so that round trips cost what they cost; the
 * figure is the ratio, and the calls per file show why. Rounds: min(3, `BENCH_ROUNDS`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeSandbox } from '@codesandbox/sdk';
import { LocalTree, syncOnce } from '../src/index.js';
import type { CsbSandboxes } from '../src/sandbox/codesandbox.js';
import { CodeSandboxTree } from '../src/sandbox/codesandbox-tree.js';
import { withoutBatchWrite } from '../src/test-support/codesandbox-plain-fs.js';
import { CodeSandboxWire } from '../src/test-support/codesandbox-wire.js';
import { generateTree } from './sync-tree.js';
import {
  type BenchConfig,
  type Check,
  envInt,
  freshDir,
  freshSatchel,
  interleave,
  MIB,
  median,
  seconds,
  WORKSPACE,
} from './util.js';

const ROOT = '/project/workspace';

export async function sandboxSyncBench(config: BenchConfig): Promise<Check[]> {
  const files = envInt('BENCH_CSB_FILES', 500);
  const totalMb = envInt('BENCH_CSB_MB', 5);
  const latencyMs = envInt('BENCH_CSB_LATENCY_MS', 5);
  const source = await freshDir(config, 'csb-source');
  const bytes = await generateTree(source, files, totalMb);
  console.log(
    `\nsync into a sandbox: ${files} files, ${(bytes / MIB).toFixed(1)} MiB, ${latencyMs} ms per call`,
  );
  const { satchel, dispose } = await freshSatchel(config, 'csb-data');
  await syncOnce({ satchel, workspace: WORKSPACE, tree: new LocalTree(source), mode: 'push' });

  const wireRoot = await mkdtemp(join(tmpdir(), 'satchel-bench-csb-'));
  const wire = await new CodeSandboxWire(wireRoot, { latencyMs }).start();
  await wire.template('tpl', {});
  const sandboxes = new CodeSandbox('csb_bench', { baseUrl: wire.baseUrl })
    .sandboxes as unknown as CsbSandboxes;
  const calls = new Map<boolean, number[]>([
    [false, []],
    [true, []],
  ]);
  const side = (batch: boolean) => ({
    label: batch ? 'rehydrate (batchWrite)' : 'rehydrate (one by one)',
    run: async () => {
      const sandbox = await sandboxes.create({ id: 'tpl' });
      const client = await sandbox.connect();
      const fs = batch ? client.fs : withoutBatchWrite(client.fs);
      const tree = new CodeSandboxTree(fs, ROOT, sandbox.id, { workspacePath: ROOT });
      const before = [...wire.methods.values()].reduce((a, b) => a + b, 0);
      try {
        return await seconds(async () => {
          const r = await syncOnce({ satchel, workspace: WORKSPACE, tree });
          if (r.downloaded !== files) throw new Error(`rehydrated ${r.downloaded} of ${files}`);
        });
      } finally {
        const after = [...wire.methods.values()].reduce((a, b) => a + b, 0);
        calls.get(batch)?.push((after - before) / files);
        await client.disconnect();
        await rm(wire.vmRoot(sandbox.id), { recursive: true, force: true });
      }
    },
  });
  try {
    const [plain = [], batched = []] = await interleave(Math.min(3, config.rounds), [
      side(false),
      side(true),
    ]);
    const show = (label: string, rounds: number[], batch: boolean) =>
      console.log(
        `  ${label}  median ${median(rounds).toFixed(2)} s   rounds: ${rounds.map((r) => r.toFixed(2)).join(', ')}   calls per file ${median(calls.get(batch) ?? []).toFixed(2)}`,
      );
    show('rehydrate, one by one ', plain, false);
    show('rehydrate, batchWrite ', batched, true);
    const ratio = median(plain) / median(batched);
    return [
      {
        benchmark: `sandbox rehydrate (${files} files, ${latencyMs} ms/call)`,
        subject: `${median(batched).toFixed(2)} s batchWrite`,
        baseline: `${median(plain).toFixed(2)} s one by one`,
        measured: `${ratio.toFixed(1)}× faster`,
        target: 'report',
        pass: null,
      },
    ];
  } finally {
    await wire.close();
    await rm(wireRoot, { recursive: true, force: true });
    await dispose();
  }
}
