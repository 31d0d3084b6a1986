/**
 * `grep`: a literal or RE2 regular expression over the lines of a workspace's current files.
 * RE2 (re2js) matches in linear time, so no pattern can backtrack catastrophically; every scan
 * is bounded by a hit limit, a time budget and file and byte budgets, and says what stopped it.
 */
import picomatch from 'picomatch';
import { RE2JS } from 're2js';
import { SatchelError } from '../base/errors.js';
import { normalizePath, validateWorkspaceName } from '../base/paths.js';
import { blobBytes, getBlobRow, isBinary } from '../kernel/content.js';
import { type EngineContext, notFound, parseOptions, requireWorkspace } from '../kernel/context.js';
import {
  type GrepHit,
  type GrepOptions,
  GrepOptionsSchema,
  type GrepResult,
  type GrepStop,
} from '../schemas/index.js';
import type { EntryRow } from '../store/metadata/metadata-store.js';

export const MAX_PATTERN_LENGTH = 1000;
/** Longest line text in a hit; longer lines are cut around the match. */
export const MAX_HIT_TEXT = 300;
const SCAN_PAGE = 500;
/** Lines between two looks at the clock. */
const CLOCK_EVERY = 2000;

interface Matcher {
  /** Whether `text` (a whole file) can hold a match at all: a cheap filter before the lines. */
  anywhere(text: string): boolean;
  /** Index of the first match in `line`, or -1. */
  find(line: string): number;
}

/** INVALID_INPUT naming the problem for patterns RE2 cannot compile (backreferences, lookaround). */
export function compileMatcher(pattern: string, regex: boolean, caseSensitive: boolean): Matcher {
  if (!regex && caseSensitive) {
    return { anywhere: (text) => text.includes(pattern), find: (line) => line.indexOf(pattern) };
  }
  const source = regex ? pattern : RE2JS.quote(pattern);
  const flags = caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE;
  let line: RE2JS;
  let file: RE2JS;
  try {
    line = RE2JS.compile(source, flags);
    // Multi-line: ^ and $ also match at line breaks, so a match in a line is one in the file.
    file = RE2JS.compile(source, flags | RE2JS.MULTILINE);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SatchelError(
      'INVALID_INPUT',
      `invalid pattern: ${reason} (RE2 syntax: no backreferences or lookaround)`,
      { field: 'pattern', reason },
    );
  }
  return {
    anywhere: (text) => file.test(text),
    find: (text) => {
      const m = line.matcher(text);
      return m.find() ? m.start() : -1;
    },
  };
}

function hitText(line: string, at: number): string {
  if (line.length <= MAX_HIT_TEXT) return line;
  const start = Math.max(0, Math.min(at - 100, line.length - MAX_HIT_TEXT));
  const cut = line.slice(start, start + MAX_HIT_TEXT);
  return `${start > 0 ? '…' : ''}${cut}${start + MAX_HIT_TEXT < line.length ? '…' : ''}`;
}

class Budget {
  readonly hits: GrepHit[] = [];
  reason: GrepStop | null = null;
  files = 0;
  bytes = 0;
  skippedBinary = 0;
  skippedLarge = 0;
  readonly #deadline: number;

  constructor(
    readonly limit: number,
    ms: number,
    readonly maxFiles: number,
    readonly maxBytes: number,
  ) {
    this.#deadline = Date.now() + ms;
  }

  /** True (and the reason set) once time is up. */
  late(): boolean {
    if (this.reason === null && Date.now() > this.#deadline) this.reason = 'time';
    return this.reason !== null;
  }
}

async function* filesOf(
  ctx: EngineContext,
  workspaceId: string,
  root: string,
  glob: string | undefined,
): AsyncGenerator<EntryRow> {
  if (root !== '/') {
    const entry = await ctx.store.getEntry(workspaceId, root);
    if (!entry) throw notFound(root);
    if (entry.type === 'file') {
      yield entry;
      return;
    }
  }
  const isMatch = glob === undefined ? null : picomatch(glob.replace(/^\/+/, ''), { dot: true });
  const prefix = root === '/' ? 1 : root.length + 1;
  let after: string | null = null;
  for (;;) {
    const rows = await ctx.store.listEntries(workspaceId, root, true, after, SCAN_PAGE);
    for (const row of rows) {
      if (row.type !== 'file') continue;
      if (isMatch && !isMatch(row.path.slice(prefix))) continue;
      yield row;
    }
    const last = rows.at(-1);
    if (rows.length < SCAN_PAGE || !last) return;
    after = last.path;
  }
}

async function contentOf(ctx: EngineContext, entry: EntryRow): Promise<Buffer> {
  const blob = await getBlobRow(ctx.store, entry.hash ?? '');
  const pieces: Uint8Array[] = [];
  for await (const piece of blobBytes(ctx, blob, 0, Number(blob.size))) pieces.push(piece);
  return Buffer.concat(pieces);
}

/** Scans one file's lines; false once a budget stops the scan. */
function scanLines(text: string, entry: EntryRow, matcher: Matcher, budget: Budget): boolean {
  let start = 0;
  for (let n = 1; start < text.length; n++) {
    if (n % CLOCK_EVERY === 0 && budget.late()) return false;
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    let line = text.slice(start, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    start = end + 1;
    const at = matcher.find(line);
    if (at === -1) continue;
    if (budget.hits.length === budget.limit) {
      budget.reason = 'limit';
      return false;
    }
    budget.hits.push({
      path: entry.path,
      seq: Number(entry.seq),
      line: n,
      text: hitText(line, at),
    });
  }
  return true;
}

export async function grep(
  ctx: EngineContext,
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
  const matcher = compileMatcher(pattern, options.regex ?? false, options.caseSensitive ?? true);
  const root = normalizePath(options.path ?? '/');
  const ws = await requireWorkspace(ctx.store, workspace);
  const budget = new Budget(
    options.limit ?? 100,
    options.timeoutMs ?? 2000,
    options.maxFiles ?? 100_000,
    options.maxBytes ?? 1024 ** 3,
  );
  for await (const entry of filesOf(ctx, ws.id, root, options.glob)) {
    if (budget.late()) break;
    if (budget.files >= budget.maxFiles) {
      budget.reason = 'files';
      break;
    }
    const size = Number(entry.size);
    if (size > ctx.limits.maxTextBytes) {
      budget.skippedLarge++;
      continue;
    }
    if (budget.bytes + size > budget.maxBytes) {
      budget.reason = 'bytes';
      break;
    }
    budget.files++;
    budget.bytes += size;
    if (size === 0 || entry.hash === null) continue;
    const data = await contentOf(ctx, entry);
    if (isBinary(data)) {
      budget.skippedBinary++;
      continue;
    }
    const text = data.toString('utf8');
    if (!matcher.anywhere(text)) continue;
    if (!scanLines(text, entry, matcher, budget)) break;
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
