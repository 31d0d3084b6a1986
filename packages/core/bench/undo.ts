/**
 * Undo of 1,000 files (issue 18): the preview (with and without its per-file diffs) and the
 * apply of a session that rewrote 1,000 files of 4 KiB. Each round undoes the previous round's
 * undo, so every round reverts all 1,000 files again. No target: the issue asks for the figures.
 */
import type { SatchelEngine } from '../src/index.js';
import { textContents } from './reads.js';
import { type BenchConfig, type Check, freshSatchel, median, settle, WORKSPACE } from './util.js';

const FILES = 1000;
const BATCH = 100;

async function writeAll(satchel: SatchelEngine, contents: readonly Buffer[], session?: string) {
  for (let start = 0; start < FILES; start += BATCH) {
    const files = contents
      .slice(start, start + BATCH)
      .map((content, k) => ({ path: `/u/${start + k}.txt`, content }));
    await satchel.writeFiles(WORKSPACE, files, session === undefined ? {} : { session });
  }
}

const ms = (values: readonly number[]) => `${median(values).toFixed(0)} ms`;

export async function undoBench(config: BenchConfig): Promise<Check[]> {
  console.log(
    `\n[12] undo: preview and apply of a session that rewrote ${FILES} files of 4 KiB, ` +
      `${config.rounds} rounds (each undoes the previous undo)`,
  );
  const { satchel, dispose } = await freshSatchel(config, 'undo');
  try {
    await writeAll(satchel, textContents(FILES));
    await writeAll(satchel, textContents(FILES), 'run');
    const withDiffs: number[] = [];
    const bare: number[] = [];
    const apply: number[] = [];
    let session = 'run';
    for (let round = 0; round < config.rounds; round++) {
      settle();
      let t = performance.now();
      const preview = await satchel.previewUndo(WORKSPACE, { session });
      withDiffs.push(performance.now() - t);
      t = performance.now();
      await satchel.previewUndo(WORKSPACE, { session }, { diff: false });
      bare.push(performance.now() - t);
      t = performance.now();
      const done = await satchel.undo(WORKSPACE, { session }, { ifHead: preview.head });
      apply.push(performance.now() - t);
      if (done.summary.revert !== FILES || done.session === null) {
        throw new Error(`undo reverted ${done.summary.revert} files, expected ${FILES}`);
      }
      session = done.session;
    }
    console.log(
      `  preview with diffs ${ms(withDiffs)}, without ${ms(bare)}, apply ${ms(apply)} (medians)`,
    );
    const figure = (benchmark: string, values: readonly number[]): Check => ({
      benchmark,
      subject: `${ms(values)} for ${FILES} files`,
      baseline: '-',
      measured: ms(values),
      target: '-',
      pass: null,
    });
    return [
      figure('12 undo preview (diffs)', withDiffs),
      figure('12 undo preview (no diffs)', bare),
      figure('12 undo apply', apply),
    ];
  } finally {
    await dispose();
  }
}
