/**
 * The search benchmark's corpus: 10,000 deterministic text files (~50 MB) of markdown-like
 * prose from a fixed synthetic vocabulary (seeded PRNG), with 20 planted topics — each a few
 * rare terms written densely into 6 files and mentioned once in passing in 30 others — and a
 * labelled query per topic (the files it was planted in are the relevant ones).
 */

export interface CorpusFile {
  readonly path: string;
  readonly content: string;
}

export interface LabelledQuery {
  readonly query: string;
  /** Paths of the files the topic was planted in. */
  readonly relevant: readonly string[];
}

export interface Corpus {
  readonly files: readonly CorpusFile[];
  readonly queries: readonly LabelledQuery[];
  readonly bytes: number;
  /** The vocabulary, most frequent first (Zipf-like), for latency queries. */
  readonly vocabulary: readonly string[];
}

/** mulberry32: small, fast, and the same sequence everywhere for a seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  're',
  'to',
  'va',
  'ne',
  'su',
  'di',
  'po',
  'ra',
  'te',
  'bo',
  'gu',
  'fi',
  'za',
];

function word(rand: () => number): string {
  const n = 2 + Math.floor(rand() * 2);
  let w = '';
  for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
  return w;
}

const TOPICS = 20;
const DENSE_FILES = 6;
const PASSING_FILES = 30;

export function generateCorpus(fileCount = 10_000, seed = 42): Corpus {
  const rand = prng(seed);
  const vocabulary = [...new Set(Array.from({ length: 3000 }, () => word(rand)))];
  // Zipf-like: earlier words are much more frequent.
  const pick = (): string => vocabulary[Math.floor(vocabulary.length * rand() ** 3)] ?? 'ka';
  const topics = Array.from({ length: TOPICS }, (_, t) => [
    `topicx${t}alpha`,
    `topicx${t}beta`,
    `topicx${t}gamma`,
  ]);
  const dense = new Map<number, number>();
  const passing = new Map<number, number>();
  const queries: LabelledQuery[] = topics.map((terms, t) => {
    const relevant: string[] = [];
    for (let k = 0; k < DENSE_FILES; k++) {
      const i = Math.floor(rand() * fileCount);
      dense.set(i, t);
      relevant.push(pathOf(i));
    }
    for (let k = 0; k < PASSING_FILES; k++) passing.set(Math.floor(rand() * fileCount), t);
    return { query: `${terms[0]} ${terms[1]}`, relevant };
  });
  // A file can be drawn for two topics; the last drawing wins: keep labels truthful.
  const labelled = queries.map((q, t) => ({
    query: q.query,
    relevant: [...new Set(q.relevant)].filter((p) => dense.get(indexOf(p)) === t),
  }));

  const sentence = (extra?: string): string => {
    const n = 8 + Math.floor(rand() * 12);
    const words = Array.from({ length: n }, pick);
    if (extra !== undefined) words.splice(Math.floor(rand() * n), 0, extra);
    const s = words.join(' ');
    return `${s[0]?.toUpperCase() ?? ''}${s.slice(1)}.`;
  };
  const files: CorpusFile[] = [];
  let bytes = 0;
  for (let i = 0; i < fileCount; i++) {
    const lines: string[] = [`# ${sentence()}`, ''];
    const sections = 4 + Math.floor(rand() * 3);
    const topic = dense.get(i);
    const mention = passing.get(i);
    for (let s = 0; s < sections; s++) {
      lines.push(`## ${sentence()}`, '');
      const paragraphs = 1 + Math.floor(rand() * 3);
      for (let p = 0; p < paragraphs; p++) {
        const count = 3 + Math.floor(rand() * 5);
        const body: string[] = [];
        for (let k = 0; k < count; k++) {
          let extra: string | undefined;
          if (topic !== undefined && s === 1) extra = topics[topic]?.[k % 3];
          else if (mention !== undefined && s === 0 && p === 0 && k === 0) {
            extra = topics[mention]?.[0];
          }
          body.push(sentence(extra));
        }
        lines.push(body.join(' '), '');
      }
    }
    const content = lines.join('\n');
    bytes += Buffer.byteLength(content);
    files.push({ path: pathOf(i), content });
  }
  return { files, queries: labelled, bytes, vocabulary };
}

function pathOf(i: number): string {
  return `/docs/d${String(i % 100).padStart(2, '0')}/f${String(i).padStart(5, '0')}.md`;
}

function indexOf(path: string): number {
  return Number(/f(\d+)\.md$/.exec(path)?.[1] ?? -1);
}
