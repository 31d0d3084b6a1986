/**
 * `grep`: a literal or RE2 regular expression over the lines of a workspace's current files.
 * RE2 (re2js) never backtracks, but its work is program size × text, and it cannot be stopped
 * inside a line: patterns compiling to too large a program are refused, and everything RE2
 * does runs on worker threads that are terminated at the deadline (grep-workers.ts), so the
 * thread serving requests only reads files and matches case-sensitive literals. Every scan is
 * bounded by a hit limit, a time budget and file and byte budgets, and says what stopped it.
 */

import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizePath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type GrepHit,
  type GrepOptions,
  GrepOptionsSchema,
  type GrepResult,
  type GrepStop,
} from '@satchel/client/schemas/index.js';
import { resolveAt } from '../kernel/at.js';
import { blobBytes, isBinary, requireBlob } from '../kernel/content.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import type { EntryRecord } from '../store/metadata/metadata-store.js';
import { filesOf } from './grep-files.js';
import {
  type BatchOutcome,
  literalMatcher,
  type Matcher,
  type MatcherSpec,
  type ScanFile,
  scanBatch,
} from './grep-scan.js';
import type { GrepWorkers } from './grep-workers.js';

export const MAX_PATTERN_LENGTH = 1000;
/**
 * Largest compiled RE2 program accepted, in instructions. Matching costs up to ~40 ns per
 * instruction per byte (measured: `(.*a){399}`, 1997 instructions, 1.6 s over 20 KB); what is
 * larger are counted repetitions of repetitions such as `(.*a){1000}` (5002), not searches.
 */
export const MAX_PROGRAM_SIZE = 2000;
/**
 * A case-sensitive literal is matched on the calling thread in files up to 1 MiB (indexOf and
 * the line loop take about 1 ms per MiB). Everything RE2 does — compiling too: a 30-character
 * case-insensitive pattern of Unicode classes takes ~15 ms — runs on a worker.
 */
const LOCAL_LITERAL_BYTES = 1024 ** 2;
/**
 * Files go to a worker in batches of up to 64 KiB or 64 files, sparing a round trip (~0.1 ms)
 * per small file; a kill loses at most one batch's hits.
 */
const BATCH_BYTES = 64 * 1024;
const BATCH_FILES = 64;
/**
 * Time allowed to compile a regex on a worker (at most ~0.3 s measured), including waiting for
 * one to start (~0.1 s; ~0.5 s from TypeScript sources) or to come free: its own, so that
 * whether a pattern is refused does not depend on the time budget.
 */
const COMPILE_MS = 5000;
/** Longest the scan keeps the event loop between two files before letting other work run. */
const YIELD_AFTER_MS = 10;

interface Pattern {
  readonly spec: MatcherSpec;
  /** The matcher for the calling thread (a case-sensitive literal), or null: workers only. */
  readonly local: Matcher | null;
}

/**
 * The pattern, checked: INVALID_INPUT naming the problem for patterns RE2 cannot compile
 * (backreferences, lookaround) and for those whose program exceeds MAX_PROGRAM_SIZE; null when
 * no worker could tell within COMPILE_MS (all busy).
 */
async function compilePattern(
  workers: GrepWorkers,
  pattern: string,
  options: GrepOptions,
): Promise<Pattern | null> {
  const regex = options.regex ?? false;
  const caseSensitive = options.caseSensitive ?? true;
  if (!regex && caseSensitive) {
    const spec: MatcherSpec = { kind: 'literal', text: pattern };
    return { spec, local: literalMatcher(pattern) };
  }
  // Loaded here, not at start: only a regex or case-insensitive search needs RE2's quoting.
  const { RE2JS } = await import('re2js');
  const spec: MatcherSpec = {
    kind: 're2',
    source: regex ? pattern : RE2JS.quote(pattern),
    flags: caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE,
    fixed: !regex,
  };
  const compiled = await workers.compile(spec, Date.now() + COMPILE_MS);
  if (compiled === null) return null;
  if ('invalid' in compiled) {
    throw new SatchelError(
      'INVALID_INPUT',
      `invalid pattern: ${compiled.invalid} (RE2 syntax: no backreferences or lookaround)`,
      { field: 'pattern', reason: compiled.invalid },
    );
  }
  if (compiled.programSize > MAX_PROGRAM_SIZE) {
    throw new SatchelError(
      'INVALID_INPUT',
      `pattern is too expensive to match: it compiles to ${compiled.programSize} RE2 ` +
        `instructions (at most ${MAX_PROGRAM_SIZE}); use smaller counted repetitions ({n}), ` +
        'above all nested ones',
      { field: 'pattern', programSize: compiled.programSize, limit: MAX_PROGRAM_SIZE },
    );
  }
  return { spec, local: null };
}

class Budget {
  readonly hits: GrepHit[] = [];
  reason: GrepStop | null = null;
  files = 0;
  bytes = 0;
  skippedBinary = 0;
  skippedLarge = 0;
  readonly deadline: number;

  constructor(
    readonly limit: number,
    ms: number,
    readonly maxFiles: number,
    readonly maxBytes: number,
  ) {
    this.deadline = Date.now() + ms;
  }

  /** True (and the reason set) once time is up. */
  late(): boolean {
    if (this.reason === null && Date.now() > this.deadline) this.reason = 'time';
    return this.reason !== null;
  }
}

async function contentOf(ctx: EngineContext, entry: EntryRecord): Promise<Buffer> {
  const blob = await requireBlob(ctx.store, entry.hash ?? '');
  const pieces: Uint8Array[] = [];
  for await (const piece of blobBytes(ctx, blob, 0, blob.size)) pieces.push(piece);
  return Buffer.concat(pieces);
}

/** The longest prefix of `data` of at most `max` bytes that does not split a UTF-8 character. */
function utf8Prefix(data: Buffer, max: number): Buffer {
  let end = max;
  // 0b10xxxxxx continues a character begun before it.
  while (end > 0 && ((data[end] ?? 0) & 0xc0) === 0x80) end--;
  return data.subarray(0, end);
}

/** A copy of `data` owning its whole buffer, so it can be transferred to a worker. */
function owned(data: Uint8Array): Uint8Array {
  const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
  return whole ? data : new Uint8Array(data);
}

/** A file read and counted in the budget, waiting to be matched. */
interface Queued {
  readonly entry: EntryRecord;
  readonly file: ScanFile;
  /** Bytes counted for it; `whole` when it was also counted as a file (not cut by the budget). */
  readonly length: number;
  readonly whole: boolean;
}

/**
 * Matches the queued files (emptying the queue) and records their hits; false once a budget
 * stopped the scan. Files the scan did not reach are taken out of the counts again; so are all
 * of them when the worker had to be killed, since their hits are lost with it.
 */
async function matchQueued(
  workers: GrepWorkers,
  pattern: Pattern,
  queue: Queued[],
  budget: Budget,
): Promise<boolean> {
  const batch = queue.splice(0);
  if (batch.length === 0) return true;
  const files = batch.map((queued) => queued.file);
  const bytes = batch.reduce((sum, queued) => sum + queued.length, 0);
  const limit = budget.limit - budget.hits.length;
  let outcome: BatchOutcome;
  if (Date.now() > budget.deadline) outcome = { hits: [], stop: 'time', files: 0 };
  else if (pattern.local !== null && bytes <= LOCAL_LITERAL_BYTES) {
    outcome = scanBatch(files, pattern.local, limit, budget.deadline);
  } else {
    const sent = files.map((file) => ({ ...file, bytes: owned(file.bytes) }));
    const job = { spec: pattern.spec, files: sent, limit, deadline: budget.deadline };
    outcome = (await workers.scan(job)) ?? { hits: [], stop: 'time', files: 0 };
  }
  for (const skipped of batch.slice(outcome.files)) {
    if (skipped.whole) budget.files--;
    budget.bytes -= skipped.length;
  }
  for (const { file, line, text } of outcome.hits) {
    const { entry } = batch[file] ?? {};
    if (entry) budget.hits.push({ path: entry.path, seq: entry.seq, line, text });
  }
  if (outcome.stop === null) return true;
  // It stopped in a file before those that ended the loop, so its reason comes first.
  budget.reason = outcome.stop;
  return false;
}

/** Reads the files in turn and matches them, in batches, until they end or a budget stops. */
async function scanFiles(
  ctx: EngineContext,
  workers: GrepWorkers,
  files: AsyncIterable<EntryRecord>,
  pattern: Pattern,
  budget: Budget,
): Promise<void> {
  const queue: Queued[] = [];
  let queuedBytes = 0;
  // Store reads may resolve without a turn of the event loop: give other requests one.
  let ran = performance.now();
  for await (const entry of files) {
    if (performance.now() - ran > YIELD_AFTER_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      ran = performance.now();
    }
    if (budget.late()) break;
    if (budget.files >= budget.maxFiles) {
      budget.reason = 'files';
      break;
    }
    const size = entry.size;
    if (size > ctx.limits.maxTextBytes) {
      budget.skippedLarge++;
      continue;
    }
    const room = budget.maxBytes - budget.bytes;
    if (room === 0 && size > 0) {
      budget.reason = 'bytes';
      break;
    }
    const whole = size <= room;
    if (whole) {
      budget.files++;
      budget.bytes += size;
    }
    if (size === 0 || entry.hash === null) continue;
    const data = await contentOf(ctx, entry);
    if (isBinary(data)) {
      if (whole) {
        budget.skippedBinary++;
        continue;
      }
      budget.reason = 'bytes';
      break;
    }
    // The byte budget may end inside this file: its prefix within the budget is searched last.
    const bytes = whole ? data : utf8Prefix(data, room);
    if (!whole) budget.bytes += bytes.length;
    queue.push({ entry, file: { bytes, cut: !whole }, length: bytes.length, whole });
    queuedBytes += bytes.length;
    if (!whole) {
      budget.reason = 'bytes';
      break;
    }
    const full = queuedBytes >= BATCH_BYTES || queue.length >= BATCH_FILES;
    if (pattern.local !== null || full) {
      queuedBytes = 0;
      if (!(await matchQueued(workers, pattern, queue, budget))) return;
    }
  }
  await matchQueued(workers, pattern, queue, budget);
}

/**
 * Hits of `pattern` in the current files under `options.path` (or in the files as they were
 * `options.at` a seq or snapshot); INVALID_INPUT for a bad pattern
 * or option, NOT_FOUND for a missing workspace or path. The time budget starts once the
 * pattern is compiled (COMPILE_MS); `reason: time` with nothing scanned when every worker was
 * busy for that long. The byte budget may end inside a file: the prefix within the budget is
 * searched, and that file is not counted in `filesScanned`.
 */
export async function grep(
  ctx: EngineContext,
  workers: GrepWorkers,
  workspace: string,
  pattern: string,
  rawOptions?: GrepOptions,
): Promise<GrepResult> {
  validateWorkspaceName(workspace);
  const options = parseOptions(GrepOptionsSchema, rawOptions);
  if (typeof pattern !== 'string' || pattern === '') {
    throw new SatchelError('INVALID_INPUT', 'pattern must not be empty', { field: 'pattern' });
  }
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new SatchelError(
      'INVALID_INPUT',
      `pattern is too long (${pattern.length} characters, at most ${MAX_PATTERN_LENGTH})`,
      { field: 'pattern' },
    );
  }
  const compiled = await compilePattern(workers, pattern, options);
  const root = normalizePath(options.path ?? '/');
  const ws = await requireWorkspace(ctx.store, workspace);
  const at = options.at === undefined ? null : await resolveAt(ctx.store, ws, options.at);
  const budget = new Budget(
    options.limit ?? 100,
    options.timeoutMs ?? 2000,
    options.maxFiles ?? 100_000,
    options.maxBytes ?? 1024 ** 3,
  );
  if (compiled === null) budget.reason = 'time';
  else {
    const files = filesOf(ctx.store, ws.id, root, options.glob, at);
    await scanFiles(ctx, workers, files, compiled, budget);
  }
  return {
    hits: budget.hits,
    truncated: budget.reason !== null,
    reason: budget.reason,
    filesScanned: budget.files,
    bytesScanned: budget.bytes,
    skippedBinary: budget.skippedBinary,
    skippedLarge: budget.skippedLarge,
  };
}
