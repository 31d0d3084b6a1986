/** Durable 4 KiB write benchmarks: sequential, batched, concurrent core writes vs the raw loop. */
import type { Satchel } from '../src/index.js';
import {
  type BenchConfig,
  type Check,
  distinctContents,
  freshSatchel,
  interleave,
  KIB,
  rateCheck,
  rawLoopRate,
  seconds,
  WORKSPACE,
} from './util.js';

const FILE_SIZE = 4 * KIB;
const BATCH = 100;
const WRITERS = 16;
const WARMUP_FILES = 200;

const RAW_LABEL = 'raw loop (open+write+fsync+close+rename+fsync dir)';

/** Writes `contents` as `/w/<i>` through core. */
type CoreLoop = (satchel: Satchel, contents: readonly Buffer[]) => Promise<void>;

/** Warms the JIT and the disk for both sides with a few hundred writes, unmeasured. */
async function warmUp(config: BenchConfig, tag: string, loop: CoreLoop): Promise<void> {
  const contents = distinctContents(WARMUP_FILES, FILE_SIZE);
  await rawLoopRate(config, `${tag}-warm-raw`, contents);
  const { satchel, dispose } = await freshSatchel(config, `${tag}-warm-core`);
  try {
    await loop(satchel, contents);
  } finally {
    await dispose();
  }
}

/** Runs the raw loop against `loop` on the same contents for `config.rounds` rounds. */
async function compareWithRaw(
  config: BenchConfig,
  tag: string,
  benchmark: string,
  subjectLabel: string,
  loop: CoreLoop,
  target: number,
): Promise<Check> {
  const contents = distinctContents(config.files, FILE_SIZE);
  await warmUp(config, tag, loop);
  const [raw = [], core = []] = await interleave(config.rounds, [
    { label: 'raw', run: (round) => rawLoopRate(config, `${tag}-raw-${round}`, contents) },
    {
      label: 'core',
      run: async (round) => {
        const { satchel, dispose } = await freshSatchel(config, `${tag}-core-${round}`);
        try {
          return contents.length / (await seconds(() => loop(satchel, contents)));
        } finally {
          await dispose();
        }
      },
    },
  ]);
  return rateCheck(
    benchmark,
    'files/s',
    { label: RAW_LABEL, values: raw },
    { label: subjectLabel, values: core },
    target,
  );
}

const sequential: CoreLoop = async (satchel, contents) => {
  for (const [i, data] of contents.entries()) await satchel.writeFile(WORKSPACE, `/w/${i}`, data);
};

const batched: CoreLoop = async (satchel, contents) => {
  for (let start = 0; start < contents.length; start += BATCH) {
    const files = contents
      .slice(start, start + BATCH)
      .map((content, k) => ({ path: `/w/${start + k}`, content }));
    await satchel.writeFiles(WORKSPACE, files);
  }
};

const concurrent: CoreLoop = async (satchel, contents) => {
  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    for (let i = w; i < contents.length; i += WRITERS) {
      const data = contents[i];
      if (data) await satchel.writeFile(WORKSPACE, `/w/${i}`, data);
    }
  });
  await Promise.all(writers);
};

export async function sequentialWrites(config: BenchConfig): Promise<Check[]> {
  console.log(
    `\n[1] durable 4 KiB writes, sequential: ${config.files} files per round, one writeFile each`,
  );
  return [
    await compareWithRaw(
      config,
      'seq',
      '1 sequential writeFile',
      'core writeFile',
      sequential,
      1.5,
    ),
  ];
}

export async function batchedWrites(config: BenchConfig): Promise<Check[]> {
  console.log(
    `\n[2] durable 4 KiB writes, batched: ${config.files} files per round, ` +
      `writeFiles of ${BATCH} files`,
  );
  const label = `core writeFiles × ${BATCH}`;
  return [await compareWithRaw(config, 'batch', '2 batched writeFiles', label, batched, 5)];
}

export async function concurrentWrites(config: BenchConfig): Promise<Check[]> {
  console.log(
    `\n[3] durable 4 KiB writes, ${WRITERS} concurrent writers: ` +
      `${config.files} files per round in total`,
  );
  const label = `core writeFile, ${WRITERS} writers`;
  return [await compareWithRaw(config, 'conc', '3 concurrent writers', label, concurrent, 3)];
}
