/** Finding things: search_files (names, by glob), grep (content), search and ask (ranked passages). */
import { excludeMatcher, type FileInfo, type SearchHit } from '@satchel/core';
import { z } from 'zod';
import {
  type AnyTool,
  AtArg,
  argOf,
  checkPath,
  defineTool,
  optionsOf,
  resultOf,
  WorkspaceArg,
} from '../tool.js';

const list = optionsOf('list').shape;

const searchFiles = defineTool({
  name: 'search_files',
  title: 'Search files',
  description:
    'Find entries by name glob under path ("*.md" in it, "**/*.md" beneath); paged. Text inside files: grep.',
  // list with a glob, page after page while exclusions leave gaps.
  operation: 'list',
  input: {
    workspace: WorkspaceArg,
    path: list.path.describe('default "/"'),
    pattern: list.glob.unwrap().min(1),
    excludePatterns: z.array(z.string().max(1000)).max(100).optional(),
    cursor: list.cursor,
    limit: list.limit,
  },
  output: {
    matches: resultOf('list').shape.items,
    total: z
      .number()
      .int()
      .describe('paths matching pattern, all pages together, before exclusions'),
    nextCursor: z.string().nullable(),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const dir = checkPath(args.path ?? '/');
    const limit = args.limit ?? 100;
    const excluded = excludeMatcher(args.excludePatterns ?? []);
    const prefix = dir === '/' ? 1 : dir.length + 1;
    const matches: FileInfo[] = [];
    let cursor = args.cursor;
    let total = 0;
    let nextCursor: string | null = null;
    // Excluded matches leave gaps: read on until the page is full or the matches end.
    for (;;) {
      const page = await ctx.satchel.list(ws, {
        ...ctx.call(),
        path: dir,
        glob: args.pattern,
        cursor,
        limit: limit - matches.length,
      });
      total = page.total;
      for (const item of page.items) if (!excluded(item.path.slice(prefix))) matches.push(item);
      nextCursor = page.nextCursor;
      if (nextCursor === null || matches.length >= limit) break;
      cursor = nextCursor;
    }
    const lines = matches.map((m) => (m.type === 'directory' ? `${m.path}/` : m.path));
    if (lines.length === 0) lines.push('No matches found');
    if (nextCursor !== null)
      lines.push(`[${total} matches in all; more with cursor=${nextCursor}]`);
    return { structured: { matches, total, nextCursor }, text: lines.join('\n') };
  },
});

const grep = defineTool({
  name: 'grep',
  title: 'Grep',
  description:
    'Lines matching a string or RE2 regex, with path, line and seq. Passages: search; names: search_files.',
  operation: 'grep',
  input: {
    workspace: WorkspaceArg,
    pattern: argOf('grep', 'pattern').min(1).max(1000),
    ...optionsOf('grep').pick({
      caseSensitive: true,
    }).shape,
    path: optionsOf('grep').shape.path.describe('file or directory'),
    glob: optionsOf('grep').shape.glob.describe('e.g. "**/*.md"'),
    regex: optionsOf('grep').shape.regex.describe('RE2'),
    limit: optionsOf('grep').shape.limit.describe('default 100'),
    at: AtArg,
  },
  output: resultOf('grep').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const result = await ctx.satchel.grep(ws, args.pattern, {
      ...ctx.call(),
      path: args.path === undefined ? undefined : checkPath(args.path),
      glob: args.glob,
      regex: args.regex,
      caseSensitive: args.caseSensitive,
      limit: args.limit,
      at: args.at,
    });
    const lines = result.hits.map((h) => `${h.path}:${h.line}: ${h.text}`);
    if (lines.length === 0) lines.push('No matches found');
    if (result.truncated) {
      lines.push(
        `[stopped by the ${result.reason} budget after ${result.filesScanned} files; narrow path or glob]`,
      );
    }
    return { structured: result, text: lines.join('\n') };
  },
});

/** The passages that fit the read budget, in rank order; the rest are dropped. */
function withinBudget(
  hits: readonly SearchHit[],
  budget: number,
): { kept: SearchHit[]; cut: boolean } {
  const kept: SearchHit[] = [];
  let left = budget;
  for (const hit of hits) {
    left -= Buffer.byteLength(hit.text);
    if (left < 0 && kept.length > 0) return { kept, cut: true };
    kept.push(hit);
  }
  return { kept, cut: false };
}

function cite(hit: SearchHit): string {
  const { path, seq, lineStart, lineEnd } = hit.citation;
  return `${path} (version ${seq}, lines ${lineStart}-${lineEnd})`;
}

const search = defineTool({
  name: 'search',
  title: 'Search',
  description:
    'Ranked full-text search: passages cited by path, seq and lines. Exact strings: grep.',
  operation: 'search',
  input: {
    workspace: WorkspaceArg,
    query: argOf('search', 'q').min(1).max(1000),
    path: optionsOf('search').shape.path.describe('only beneath'),
    limit: optionsOf('search').shape.limit.describe('default 10'),
    at: AtArg,
  },
  output: {
    ...resultOf('search').shape,
    truncated: z
      .boolean()
      .describe('true when passages were dropped: the read limit, or a scan of the past'),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const result = await ctx.satchel.search(ws, args.query, {
      ...ctx.call(),
      path: args.path === undefined ? undefined : checkPath(args.path),
      limit: args.limit,
      at: args.at,
    });
    const { kept, cut } = withinBudget(result.items, ctx.limits.maxReadBytes);
    const lines = kept.map((hit, i) => `[${i + 1}] ${cite(hit)}\n${hit.snippet}`);
    if (lines.length === 0) lines.push('No passages found');
    if (result.truncated) lines.push('[the scan of the past stopped at its budget: narrow path]');
    else if (result.mode !== 'scan' && result.indexedSeq < result.headSeq) {
      lines.push(
        `[the index is at version ${result.indexedSeq} of ${result.headSeq}: the newest changes may be missing]`,
      );
    }
    const truncated = cut || result.truncated === true;
    return { structured: { ...result, items: kept, truncated }, text: lines.join('\n\n') };
  },
});

const ask = defineTool({
  name: 'ask',
  title: 'Ask',
  description:
    'Answer from the files, citing path, seq and lines (only passages without a server-side model).',
  operation: 'ask',
  input: {
    workspace: WorkspaceArg,
    question: argOf('ask', 'question').min(1).max(2000),
    path: optionsOf('ask').shape.path.describe('only beneath'),
  },
  output: {
    ...resultOf('ask').shape,
    truncated: z
      .boolean()
      .describe('true when passages were dropped to stay within the read limit'),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const result = await ctx.satchel.ask(ws, args.question, {
      ...ctx.call(),
      path: args.path === undefined ? undefined : checkPath(args.path),
    });
    const { kept, cut } = withinBudget(result.passages, ctx.limits.maxReadBytes);
    const sources = kept.map((hit, i) => `[${i + 1}] ${cite(hit)}\n${hit.text}`);
    const head = result.answer ?? result.note ?? 'No answer; the passages found are below.';
    return {
      structured: { ...result, passages: kept, truncated: cut },
      text: [head, ...sources].join('\n\n'),
    };
  },
});

export const searchTools: AnyTool[] = [searchFiles, grep, search, ask];
