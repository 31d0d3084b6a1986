/**
 * Search: indexing throughput (MB/s) of a 10,000-file, ~50 MB generated corpus, query latency
 * p50/p95 (target p95 < 20 ms), grep over the corpus against `grep -rn` of the same files, and
 * recall@5 on 20 labelled queries (search-corpus.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SatchelEngine } from '../src/index.js';
import { generateCorpus, prng } from './search-corpus.js';
import {
  type BenchConfig,
  type Check,
  envInt,
  freshDir,
  freshSatchel,
  MIB,
  median,
  percentile,
  seconds,
  sleep,
  WORKSPACE,
} from './util.js';

const QUERIES = 300;

async function waitIndexed(satchel: SatchelEngine): Promise<void> {
  for (;;) {
    const status = await satchel.searchStatus(WORKSPACE);
    if (status.lag === 0 && !status.rebuilding) return;
    await sleep(250);
  }
}

function writeTree(root: string, files: readonly { path: string; content: string }[]): void {
  for (const f of files) {
    const target = join(root, f.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, f.content);
  }
}

export async function searchBench(config: BenchConfig): Promise<Check[]> {
  const fileCount = envInt('BENCH_SEARCH_FILES', 10_000);
  const corpus = generateCorpus(fileCount);
  const mb = corpus.bytes / MIB;
  console.log(
    `\nsearch: ${fileCount} files, ${mb.toFixed(1)} MiB, ${corpus.queries.length} labelled queries`,
  );
  const { satchel, dispose } = await freshSatchel(config, 'search');
  const checks: Check[] = [];
  try {
    // Load with indexing off, then time the rebuild alone.
    await satchel.updateWorkspace(WORKSPACE, { indexing: 'off' });
    for (let i = 0; i < corpus.files.length; i += 500) {
      await satchel.writeFiles(WORKSPACE, corpus.files.slice(i, i + 500));
    }
    const indexing = await seconds(async () => {
      await satchel.updateWorkspace(WORKSPACE, { indexing: 'on' });
      await waitIndexed(satchel);
    });
    const status = await satchel.searchStatus(WORKSPACE);
    const rate = mb / indexing;
    console.log(
      `  indexing: ${indexing.toFixed(1)} s, ${rate.toFixed(2)} MiB/s, ${status.passages} passages`,
    );
    checks.push({
      benchmark: 'search indexing',
      subject: `${rate.toFixed(2)} MiB/s`,
      baseline: '-',
      measured: `${indexing.toFixed(1)} s`,
      target: '-',
      pass: null,
    });

    // Latency of ordinary queries (labelled ones, and 1-3 words from outside the 300 most
    // frequent) and, separately, of stopword-like queries (the 10 most frequent words, each
    // in most passages).
    const rand = prng(7);
    const words = (from: number, to: number, n: number) =>
      Array.from(
        { length: n },
        () => corpus.vocabulary[from + Math.floor(rand() * (to - from))] ?? 'ka',
      ).join(' ');
    const ordinary = Array.from({ length: QUERIES }, (_, i) => {
      const labelled = corpus.queries[i % corpus.queries.length];
      if (i % 3 === 0 && labelled) return labelled.query;
      return words(300, corpus.vocabulary.length, 1 + Math.floor(rand() * 3));
    });
    const common = Array.from({ length: 30 }, () => words(0, 10, 1 + Math.floor(rand() * 2)));
    for (const q of ordinary.slice(0, 20)) await satchel.search(WORKSPACE, q); // warm-up
    const latency = async (queries: readonly string[]): Promise<number[]> => {
      const times: number[] = [];
      for (const q of queries) {
        const start = process.hrtime.bigint();
        await satchel.search(WORKSPACE, q, { limit: 10 });
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      return times.sort((a, b) => a - b);
    };
    const times = await latency(ordinary);
    const p50 = percentile(times, 0.5);
    const p95 = percentile(times, 0.95);
    const stop = await latency(common);
    console.log(
      `  query latency (${QUERIES} ordinary queries): p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms; ` +
        `stopword-like (${common.length}): p50 ${percentile(stop, 0.5).toFixed(0)} ms, p95 ${percentile(stop, 0.95).toFixed(0)} ms`,
    );
    checks.push({
      benchmark: 'search latency',
      subject: `p50 ${p50.toFixed(1)} ms`,
      baseline: '-',
      measured: `p95 ${p95.toFixed(1)} ms`,
      target: 'p95 < 20 ms',
      pass: p95 < 20,
    });
    checks.push({
      benchmark: 'search latency, stopwords',
      subject: `p50 ${percentile(stop, 0.5).toFixed(0)} ms`,
      baseline: '-',
      measured: `p95 ${percentile(stop, 0.95).toFixed(0)} ms`,
      target: '-',
      pass: null,
    });

    // Recall@5: of each query's relevant files, the share found in the top 5 passages' files.
    let recall = 0;
    for (const { query, relevant } of corpus.queries) {
      const top = (await satchel.search(WORKSPACE, query, { limit: 5 })).items;
      const found = new Set(top.map((h) => h.citation.path));
      recall += relevant.filter((p) => found.has(p)).length / Math.min(5, relevant.length);
    }
    recall /= corpus.queries.length;
    console.log(`  recall@5 over ${corpus.queries.length} labelled queries: ${recall.toFixed(3)}`);
    checks.push({
      benchmark: 'search recall@5',
      subject: recall.toFixed(3),
      baseline: '-',
      measured: recall.toFixed(3),
      target: '≥ 0.8',
      pass: recall >= 0.8,
    });

    // grep: core over the workspace vs grep -rn over the same files on disk.
    const dir = await freshDir(config, 'search-grep');
    writeTree(dir, corpus.files);
    const needle = corpus.queries[0]?.query.split(' ')[0] ?? 'topicx0alpha';
    const core: number[] = [];
    const raw: number[] = [];
    let hits = 0;
    let rawHits = 0;
    for (let round = 0; round < config.rounds; round++) {
      raw.push(
        await seconds(() => {
          const out = execFileSync('grep', ['-rn', needle, dir], { encoding: 'utf8' });
          rawHits = out.trim().split('\n').length;
        }),
      );
      core.push(
        await seconds(async () => {
          const r = await satchel.grep(WORKSPACE, needle, { limit: 1000, timeoutMs: 30_000 });
          hits = r.hits.length;
        }),
      );
    }
    const c = median(core) * 1000;
    const g = median(raw) * 1000;
    console.log(
      `  grep "${needle}": core ${c.toFixed(0)} ms (${hits} hits), grep -rn ${g.toFixed(0)} ms (${rawHits} hits), ratio ${(c / g).toFixed(1)}×`,
    );
    checks.push({
      benchmark: 'search grep',
      subject: `${c.toFixed(0)} ms`,
      baseline: `${g.toFixed(0)} ms (grep -rn)`,
      measured: `${(c / g).toFixed(1)}× slower`,
      target: '-',
      pass: null,
    });
  } finally {
    await dispose();
  }
  return checks;
}
