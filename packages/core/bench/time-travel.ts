/**
 * Time travel (issue 18): creating a snapshot, reading 4 KiB as of a seq against reading the
 * head (goal ≥ 0.8× the head's rate), and forking a workspace of 10,000 files (goal < 1 s).
 */
import type { SatchelEngine } from '../src/index.js';
import { textContents } from './reads.js';
import { type BenchConfig, type Check, freshSatchel, median, settle, WORKSPACE } from './util.js';

const READ_FILES = 200;
const READS = 2000;
const FORK_FILES = 10_000;
const BATCH = 500;

async function writeMany(satchel: SatchelEngine, ws: string, count: number, dir: string) {
  for (let start = 0; start < count; start += BATCH) {
    const contents = textContents(Math.min(BATCH, count - start));
    const files = contents.map((content, k) => ({ path: `${dir}/${start + k}.txt`, content }));
    await satchel.writeFiles(ws, files);
  }
}

async function readRate(satchel: SatchelEngine, at: number | undefined): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < READS; i++) {
    const path = `/r/${i % READ_FILES}.txt`;
    await satchel.readText(WORKSPACE, path, at === undefined ? {} : { at });
  }
  return READS / ((performance.now() - t) / 1000);
}

export async function timeTravelBench(config: BenchConfig): Promise<Check[]> {
  console.log(
    `\n[13] time travel: snapshot create; ${READS} reads of 4 KiB as of a seq vs the head; ` +
      `fork of ${FORK_FILES} files; ${config.rounds} rounds`,
  );
  const { satchel, dispose } = await freshSatchel(config, 'time-travel');
  try {
    await writeMany(satchel, WORKSPACE, READ_FILES, '/r');
    const past = (await satchel.getWorkspace(WORKSPACE)).seq;
    // Later history on the same paths, so an as-of read has newer versions to look past.
    await writeMany(satchel, WORKSPACE, READ_FILES, '/r');
    await writeMany(satchel, WORKSPACE, FORK_FILES - READ_FILES, '/f');
    const snapshot: number[] = [];
    const head: number[] = [];
    const asOf: number[] = [];
    const fork: number[] = [];
    for (let round = 0; round < config.rounds; round++) {
      settle();
      let t = performance.now();
      await satchel.createSnapshot(WORKSPACE, `s${round}`);
      snapshot.push(performance.now() - t);
      head.push(await readRate(satchel, undefined));
      asOf.push(await readRate(satchel, past));
      settle();
      t = performance.now();
      const made = await satchel.forkWorkspace(WORKSPACE, `fork-${round}`);
      fork.push(performance.now() - t);
      if (made.files < FORK_FILES) throw new Error(`fork has ${made.files} paths`);
    }
    const ratio = median(asOf) / median(head);
    const forkMs = median(fork);
    console.log(
      `  snapshot ${median(snapshot).toFixed(1)} ms; reads ${median(head).toFixed(0)}/s head, ` +
        `${median(asOf).toFixed(0)}/s as of (${ratio.toFixed(2)}×); fork ${forkMs.toFixed(0)} ms`,
    );
    return [
      {
        benchmark: '13 snapshot create',
        subject: `${median(snapshot).toFixed(1)} ms`,
        baseline: '-',
        measured: `${median(snapshot).toFixed(1)} ms`,
        target: '-',
        pass: null,
      },
      {
        benchmark: '13 as-of read 4 KiB',
        subject: `${median(asOf).toFixed(0)}/s`,
        baseline: `head ${median(head).toFixed(0)}/s`,
        measured: `${ratio.toFixed(2)}×`,
        target: '≥ 0.8×',
        pass: ratio >= 0.8,
      },
      {
        benchmark: '13 fork 10,000 files',
        subject: `${forkMs.toFixed(0)} ms`,
        baseline: '-',
        measured: `${forkMs.toFixed(0)} ms`,
        target: '< 1000 ms',
        pass: forkMs < 1000,
      },
    ];
  } finally {
    await dispose();
  }
}
