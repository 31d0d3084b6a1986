/** 4 KiB reads: core readFile and readText of random small files vs fs.promises.readFile. */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Satchel } from '../src/index.js';
import {
  type BenchConfig,
  type Check,
  freshDir,
  freshSatchel,
  interleave,
  KIB,
  rateCheck,
  seconds,
  WORKSPACE,
} from './util.js';

/** Files stored on each side; every round reads READS of them in the same random order. */
const FILES = 2000;
const READS = 5000;
const FILE_SIZE = 4 * KIB;
const WARMUP_READS = 1000;

/** Distinct 4 KiB UTF-8 texts (64 lines of 63 hex digits), so readText accepts them. */
export function textContents(count: number): Buffer[] {
  const lineCount = FILE_SIZE / 64;
  return Array.from({ length: count }, (_, i) => {
    const hex = randomBytes(lineCount * 32).toString('hex');
    const lines: string[] = [];
    for (let l = 0; l < lineCount; l++) lines.push(`${hex.slice(l * 64, l * 64 + 63)}\n`);
    const data = Buffer.from(lines.join(''), 'utf8');
    data.write(i.toString(16).padStart(8, '0'), 0, 'utf8');
    return data;
  });
}

/** Deterministic indexes (mulberry32), identical for every side and round. */
export function randomOrder(count: number, modulo: number, seed: number): number[] {
  let a = seed >>> 0;
  return Array.from({ length: count }, () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % modulo) >>> 0;
  });
}

async function coreReadFile(satchel: Satchel, order: readonly number[]): Promise<number> {
  let bytes = 0;
  for (const i of order) {
    const { body } = await satchel.readFile(WORKSPACE, `/r/${i}.txt`);
    for await (const piece of body) bytes += (piece as Uint8Array).byteLength;
  }
  return bytes;
}

async function coreReadText(satchel: Satchel, order: readonly number[]): Promise<number> {
  let chars = 0;
  for (const i of order) chars += (await satchel.readText(WORKSPACE, `/r/${i}.txt`)).text.length;
  return chars;
}

async function rawRead(dir: string, order: readonly number[]): Promise<number> {
  let bytes = 0;
  for (const i of order) bytes += (await readFile(join(dir, `${i}.txt`))).byteLength;
  return bytes;
}

/** Reads/s of `read`, checking it saw every byte. */
async function readRate(
  read: (order: readonly number[]) => Promise<number>,
  order: readonly number[],
): Promise<number> {
  let total = 0;
  const s = await seconds(async () => {
    total = await read(order);
  });
  if (total !== order.length * FILE_SIZE) {
    throw new Error(`read ${total} bytes, expected ${order.length * FILE_SIZE}`);
  }
  return order.length / s;
}

export async function smallReads(config: BenchConfig): Promise<Check[]> {
  console.log(
    `\n[4] 4 KiB reads: ${READS} random reads per round out of ${FILES} files, sequential`,
  );
  const contents = textContents(FILES);
  const dir = await freshDir(config, 'reads-raw');
  for (const [i, data] of contents.entries()) writeFileSync(join(dir, `${i}.txt`), data);
  const { satchel, dispose } = await freshSatchel(config, 'reads-core');
  try {
    for (let start = 0; start < FILES; start += 100) {
      const files = contents
        .slice(start, start + 100)
        .map((content, k) => ({ path: `/r/${start + k}.txt`, content }));
      await satchel.writeFiles(WORKSPACE, files);
    }
    const warm = randomOrder(WARMUP_READS, FILES, 1);
    await readRate((o) => rawRead(dir, o), warm);
    await readRate((o) => coreReadFile(satchel, o), warm);
    await readRate((o) => coreReadText(satchel, o), warm);

    const orders = Array.from({ length: config.rounds }, (_, r) =>
      randomOrder(READS, FILES, r + 2),
    );
    const order = (round: number): readonly number[] => orders[round] ?? [];
    const [raw = [], file = [], text = []] = await interleave(config.rounds, [
      { label: 'raw', run: (r) => readRate((o) => rawRead(dir, o), order(r)) },
      { label: 'readFile', run: (r) => readRate((o) => coreReadFile(satchel, o), order(r)) },
      { label: 'readText', run: (r) => readRate((o) => coreReadText(satchel, o), order(r)) },
    ]);
    const baseline = { label: 'fs.promises.readFile', values: raw };
    return [
      rateCheck(
        '4 reads: readFile',
        'reads/s',
        baseline,
        { label: 'core readFile + body', values: file },
        0.7,
      ),
      rateCheck(
        '4 reads: readText',
        'reads/s',
        baseline,
        { label: 'core readText', values: text },
        0.7,
      ),
    ];
  } finally {
    await dispose();
  }
}
