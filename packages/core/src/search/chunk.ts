/**
 * The passage splitter: cuts a text file into passages along natural boundaries — a markdown
 * heading starts a passage, blank lines are soft boundaries, fenced code blocks stay whole —
 * aiming at a few hundred words with a small overlap. Every passage is an exact run of lines of
 * the file (terminators included, numbered from 1 as `readText` numbers them), so a citation
 * `{lineStart, lineEnd}` reads back exactly the passage's text.
 */

export interface Passage {
  /** 1-based number of the first line. */
  readonly lineStart: number;
  /** Number of the last line, inclusive. */
  readonly lineEnd: number;
  /** Lines lineStart..lineEnd, joined, with their terminators. */
  readonly text: string;
}

export interface ChunkOptions {
  /** A passage is closed at the first boundary after it reaches this many words (default 200). */
  readonly targetWords?: number;
  /** A passage never grows past this many words unless a single line is longer (default 400). */
  readonly maxWords?: number;
  /** Lines of a passage cut for size that the next one repeats (default 2). */
  readonly overlapLines?: number;
}

const HEADING = /^ {0,3}#{1,6}(?:\s|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** A file's lines with their terminators, split as `readText` splits them (on "\n"). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) break;
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

function wordCount(line: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    const space = c === 32 || c === 9 || c === 10 || c === 13;
    if (!space && !inWord) count++;
    inWord = !space;
  }
  return count;
}

const isBlank = (line: string): boolean => line.trim() === '';

interface Block {
  /** Index of the first line (0-based). */
  readonly start: number;
  /** Index after the last line. */
  readonly end: number;
  readonly words: number;
  readonly heading: boolean;
}

/** Paragraphs, headings and fenced code blocks, with the blank lines between them left out. */
function blocks(lines: readonly string[], words: readonly number[]): Block[] {
  const out: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlank(line)) {
      i++;
      continue;
    }
    const start = i;
    const fence = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      // A fenced block runs to its closing fence (or the end of the file).
      i++;
      while (i < lines.length && !(lines[i] ?? '').trimStart().startsWith(fence)) i++;
      i = Math.min(i + 1, lines.length);
    } else if (HEADING.test(line)) {
      i++;
    } else {
      i++;
      while (i < lines.length) {
        const next = lines[i] ?? '';
        if (isBlank(next) || HEADING.test(next) || FENCE.test(next)) break;
        i++;
      }
    }
    let count = 0;
    for (let j = start; j < i; j++) count += words[j] ?? 0;
    out.push({ start, end: i, words: count, heading: fence === undefined && HEADING.test(line) });
  }
  return out;
}

/** Cuts `text` into passages; a text of only blank lines has none. */
export function chunkText(text: string, options: ChunkOptions = {}): Passage[] {
  const target = options.targetWords ?? 200;
  const max = Math.max(target, options.maxWords ?? 400);
  const overlap = options.overlapLines ?? 2;
  const lines = splitLines(text);
  const words = lines.map(wordCount);
  const passages: Passage[] = [];

  const emit = (start: number, end: number): void => {
    // Passages begin and end on a line with content: blank edges are not worth citing.
    let s = start;
    let e = end;
    while (s < e && isBlank(lines[s] ?? '')) s++;
    while (e > s && isBlank(lines[e - 1] ?? '')) e--;
    if (s === e) return;
    passages.push({ lineStart: s + 1, lineEnd: e, text: lines.slice(s, e).join('') });
  };

  let start = -1;
  let end = -1;
  let count = 0;
  // Lines before this index were emitted already: an open passage of only those is not new.
  let emitted = 0;
  /** Closes the open passage; with `carry`, the next one starts with its last lines. */
  const flush = (carry: boolean): void => {
    if (start === -1) return;
    if (end > emitted) emit(start, end);
    emitted = Math.max(emitted, end);
    if (carry && overlap > 0 && end - start > overlap) {
      start = end - overlap;
      count = 0;
      for (let j = start; j < end; j++) count += words[j] ?? 0;
    } else {
      start = -1;
      count = 0;
    }
  };

  for (const block of blocks(lines, words)) {
    if (block.heading) flush(false);
    if (block.words > max) {
      // Too long to keep whole (a huge paragraph or code block): cut it by lines.
      flush(false);
      for (let j = block.start; j < block.end; j++) {
        if (start === -1) start = j;
        end = j + 1;
        count += words[j] ?? 0;
        if (count >= target) flush(true);
      }
      flush(false);
      continue;
    }
    if (start !== -1 && count + block.words > max) flush(true);
    if (start === -1) start = block.start;
    end = block.end;
    count += block.words;
    if (count >= target) flush(true);
  }
  flush(false);
  return passages;
}
