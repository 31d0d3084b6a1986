/**
 * The matching half of `grep`: files' text, line by line, against a literal or an RE2 pattern,
 * within a hit limit and a deadline. Plain data in and out, and no engine imports, so
 * the same code runs on the calling thread and in a grep worker (grep-worker.ts). RE2 matchers
 * are built in grep-re2.ts, which only the worker loads: re2js is a quarter of a megabyte that
 * no other command needs at start.
 */

/** Longest line text in a hit; longer lines are cut around the match. */
export const MAX_HIT_TEXT = 300;
/** Characters scanned, and lines, between two looks at the clock. */
const CLOCK_CHARS = 64 * 1024;
const CLOCK_LINES = 2000;

/** What a matcher is built from: plain data, so it can be posted to a worker. */
export type MatcherSpec =
  | { readonly kind: 'literal'; readonly text: string }
  | {
      readonly kind: 're2';
      readonly source: string;
      readonly flags: number;
      /** The source is a quoted literal (a case-insensitive literal search). */
      readonly fixed: boolean;
    };

export interface Matcher {
  /** Whether `text` (a whole file) can hold a match at all: a cheap filter before the lines. */
  anywhere(text: string): boolean;
  /** The first match in `line` as [start, end), or null. */
  find(line: string): readonly [number, number] | null;
  /** True when a match is a fixed string, so it never depends on the text after it. */
  readonly fixed: boolean;
  /** Instructions of the compiled RE2 program (0 for a literal searched with indexOf). */
  readonly programSize: number;
}

/** The matcher of a case-sensitive literal: `indexOf`, no RE2. */
export function literalMatcher(literal: string): Matcher {
  return {
    fixed: true,
    programSize: 0,
    anywhere: (text) => text.includes(literal),
    find: (line) => {
      const at = line.indexOf(literal);
      return at === -1 ? null : [at, at + literal.length];
    },
  };
}

export function hitText(line: string, at: number): string {
  if (line.length <= MAX_HIT_TEXT) return line;
  const start = Math.max(0, Math.min(at - 100, line.length - MAX_HIT_TEXT));
  const cut = line.slice(start, start + MAX_HIT_TEXT);
  return `${start > 0 ? '…' : ''}${cut}${start + MAX_HIT_TEXT < line.length ? '…' : ''}`;
}

export interface ScanLimits {
  /** Hits still allowed; one match more stops the scan with `limit`. */
  readonly limit: number;
  /** `Date.now()` after which the scan stops with `time`. */
  readonly deadline: number;
  /**
   * The text is a prefix cut by the byte budget, so its last line does not end where the text
   * does: a match reaching the cut is not reported, since what follows could undo it (`$`, `\b`).
   */
  readonly cut: boolean;
}

export interface LineHit {
  /** 1-based line number. */
  readonly line: number;
  readonly text: string;
}

export interface ScanOutcome {
  readonly hits: LineHit[];
  /** The budget that stopped the scan before the end of the text, or null. */
  readonly stop: 'limit' | 'time' | null;
}

/**
 * Matches the lines of `text` (terminated by `\n`, a trailing `\r` dropped). The clock is read
 * every 64 Ki characters or 2000 lines, whichever comes first, so a run of long lines cannot
 * outlast the deadline by more than one line: inside one line only a worker's termination
 * can stop RE2 (grep-workers.ts).
 */
export function scanText(text: string, matcher: Matcher, limits: ScanLimits): ScanOutcome {
  const hits: LineHit[] = [];
  if (!matcher.anywhere(text)) return { hits, stop: null };
  let start = 0;
  let chars = 0;
  let lines = 0;
  for (let n = 1; start < text.length; n++) {
    if (chars >= CLOCK_CHARS || lines >= CLOCK_LINES) {
      if (Date.now() > limits.deadline) return { hits, stop: 'time' };
      chars = 0;
      lines = 0;
    }
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    let line = text.slice(start, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    chars += end - start + 1;
    lines++;
    start = end + 1;
    const match = matcher.find(line);
    if (match === null) continue;
    if (limits.cut && nl === -1 && !matcher.fixed && match[1] >= line.length) continue;
    if (hits.length >= limits.limit) return { hits, stop: 'limit' };
    hits.push({ line: n, text: hitText(line, match[0]) });
  }
  return { hits, stop: null };
}

/** One file of a batch: its UTF-8 bytes, and whether the byte budget cut them (ScanLimits). */
export interface ScanFile {
  readonly bytes: Uint8Array;
  readonly cut: boolean;
}

export interface FileHit extends LineHit {
  /** Index of the file in its batch. */
  readonly file: number;
}

export interface BatchOutcome {
  readonly hits: FileHit[];
  readonly stop: 'limit' | 'time' | null;
  /** How many files' scans began: the files after them were not looked at. */
  readonly files: number;
}

const decoder = new TextDecoder();

/**
 * Scans `files` in order under one hit limit and deadline; the clock is also read before each
 * file. Batches spare a worker round trip per small file.
 */
export function scanBatch(
  files: readonly ScanFile[],
  matcher: Matcher,
  limit: number,
  deadline: number,
): BatchOutcome {
  const hits: FileHit[] = [];
  for (const [file, { bytes, cut }] of files.entries()) {
    if (Date.now() > deadline) return { hits, stop: 'time', files: file };
    const text = decoder.decode(bytes);
    const outcome = scanText(text, matcher, { limit: limit - hits.length, deadline, cut });
    for (const hit of outcome.hits) hits.push({ file, ...hit });
    if (outcome.stop !== null) return { hits, stop: outcome.stop, files: file + 1 };
  }
  return { hits, stop: null, files: files.length };
}
