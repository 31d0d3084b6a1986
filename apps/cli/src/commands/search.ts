/** `satchel grep`, `satchel search` (with `--status`, `--reindex`) and `satchel ask`. */
import type { AskResult, SearchHit, SearchStatus } from '@satchel/core';
import { type Command, Option } from 'commander';
import { type Context, positiveInt } from '../context.js';
import { usageError } from '../errors.js';
import { examples, table } from '../format.js';

interface GrepFlags {
  readonly regex?: boolean;
  readonly ignoreCase?: boolean;
  readonly glob?: string;
  readonly limit?: number;
  readonly timeout?: number;
  readonly at?: string;
}

interface SearchFlags {
  readonly path?: string;
  readonly limit?: number;
  readonly status?: boolean;
  readonly reindex?: boolean;
  readonly at?: string;
}

interface AskFlags {
  readonly path?: string;
  readonly limit?: number;
}

/** `/notes/run.md@12:5-9` — the citation as one token: path, version, lines. */
export function citationText(hit: Pick<SearchHit, 'citation'>): string {
  const c = hit.citation;
  return `${c.path}@${c.seq}:${c.lineStart}-${c.lineEnd}`;
}

/** The snippet on one line, highlights kept («…»). */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function statusLines(status: SearchStatus): string[] {
  const rows = [
    ['indexing', status.enabled ? 'on' : 'off'],
    ['indexed seq', `${status.indexedSeq} of ${status.headSeq}`],
    [
      'lag',
      `${status.lag} change${status.lag === 1 ? '' : 's'}${status.rebuilding ? ' (rebuilding)' : ''}`,
    ],
    ['passages', String(status.passages)],
    ['files', String(status.files)],
  ];
  const v = status.vectors;
  rows.push([
    'vectors',
    v === null
      ? 'off (no embedding provider)'
      : `${v.model}, ${v.pending} pending${v.error === null ? '' : `, last error: ${v.error}`}`,
  ]);
  return table(rows);
}

function askLines(result: AskResult): string[] {
  const lines: string[] = [];
  if (result.answer !== null) {
    lines.push(result.answer.trim(), '');
    for (const c of result.citations) lines.push(`[${c.n}] ${citationText({ citation: c })}`);
    return lines;
  }
  result.passages.forEach((p, i) => {
    lines.push(`[${i + 1}] ${citationText(p)}`, `    ${oneLine(p.snippet)}`);
  });
  return lines;
}

export function registerSearchCommands(program: Command, ctx: Context): void {
  const grep = program
    .command('grep')
    .description(
      'search the current files line by line for a literal (or, with -E, an RE2 regex); ' +
        'prints path:line:text, skips binary files, and stops at a hit limit and a time budget',
    )
    .argument('<pattern>', 'text to find (a regular expression with -E)')
    .argument('[path]', 'file or directory to search (default /)')
    .option('-E, --regex', 'treat PATTERN as an RE2 regular expression (no backreferences)')
    .option('-i, --ignore-case', 'match case-insensitively')
    .option('--glob <glob>', 'only paths matching this glob, relative to PATH (e.g. "**/*.md")')
    .option('--limit <n>', 'at most N hits (default 100, max 1000)', positiveInt)
    .option('--timeout <ms>', 'time budget in milliseconds (default 2000)', positiveInt)
    .option('--at <seq|snapshot>', 'search the files as they were at a seq or snapshot')
    .action(async (pattern: string, path: string | undefined, flags: GrepFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const result = await (await run.satchel()).grep(run.workspace(), pattern, {
        ...run.call(),
        ...(path === undefined ? {} : { path }),
        ...(flags.glob === undefined ? {} : { glob: flags.glob }),
        ...(flags.regex ? { regex: true } : {}),
        ...(flags.ignoreCase ? { caseSensitive: false } : {}),
        ...(flags.limit === undefined ? {} : { limit: flags.limit }),
        ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
        ...(flags.at === undefined ? {} : { at: flags.at }),
      });
      if (run.json) {
        run.printJson(result);
        return;
      }
      run.lines(result.hits.map((h) => `${h.path}:${h.line}:${h.text}`));
      if (result.truncated) {
        run.note(
          `… stopped early (${result.reason}); narrow the search or raise --limit/--timeout`,
        );
      }
      if (result.hits.length === 0) run.note('no matches');
    });
  examples(grep, [
    'satchel grep TODO -w demo',
    'satchel grep -i "api key" /config --glob "**/*.yaml"',
    'satchel grep -E "^error: .*timeout" /logs --json',
    'satchel grep TODO --at before-run',
  ]);

  const search = program
    .command('search')
    .description(
      'ranked passages (BM25, hybrid with an embedding provider) with citations ' +
        'path@version:lines that stay readable with `satchel cat PATH --version N`',
    )
    .argument('[query...]', 'words to search for')
    .option('--path <path>', 'only files at or beneath this path')
    .option('--limit <n>', 'at most N passages (default 10, max 100)', positiveInt)
    .option(
      '--at <seq|snapshot>',
      'search the workspace as it was then (read as it was, ranked within a time budget)',
    )
    .addOption(new Option('--status', 'show the index: indexed seq, lag, passages, vectors'))
    .addOption(new Option('--reindex', 'rebuild the index from the current files (owners)'))
    .action(async (words: string[], flags: SearchFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const satchel = await run.satchel();
      const ws = run.workspace();
      if (flags.status || flags.reindex) {
        if (words.length > 0) throw usageError('--status and --reindex take no query');
        const status = flags.reindex
          ? await satchel.reindex(ws, run.call())
          : await satchel.searchStatus(ws);
        if (run.json) run.printJson(status);
        else run.lines(statusLines(status));
        return;
      }
      if (words.length === 0) {
        throw usageError(
          'missing query',
          'pass words to search for, e.g. `satchel search deploy notes`',
        );
      }
      const result = await satchel.search(ws, words.join(' '), {
        ...run.call(),
        ...(flags.path === undefined ? {} : { path: flags.path }),
        ...(flags.limit === undefined ? {} : { limit: flags.limit }),
        ...(flags.at === undefined ? {} : { at: flags.at }),
      });
      if (run.json) {
        run.printJson(result);
        return;
      }
      for (const hit of result.items) {
        run.lines([citationText(hit), `    ${oneLine(hit.snippet)}`]);
      }
      if (result.items.length === 0) run.note('no passages match');
      if (result.truncated) run.note('… the scan of the past stopped at its budget: narrow --path');
      if (result.mode !== 'scan' && result.indexedSeq < result.headSeq) {
        run.note(`note: the index is ${result.headSeq - result.indexedSeq} changes behind`);
      }
    });
  examples(search, [
    'satchel search deploy rollback -w demo',
    'satchel search "billing migration" --path /notes --limit 3 --json',
    'satchel search deploy --at before-run',
    'satchel search --status',
    'satchel search --reindex',
  ]);

  const ask = program
    .command('ask')
    .description(
      'answer a question from the workspace with numbered citations (needs SATCHEL_LLM_URL ' +
        'and SATCHEL_LLM_MODEL); without a model, prints the best passages',
    )
    .argument('<question...>', 'the question')
    .option('--path <path>', 'only files at or beneath this path')
    .option('--limit <n>', 'passages to retrieve (default 6, max 20)', positiveInt)
    .action(async (words: string[], flags: AskFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const result = await (await run.satchel()).ask(run.workspace(), words.join(' '), {
        ...run.call(),
        ...(flags.path === undefined ? {} : { path: flags.path }),
        ...(flags.limit === undefined ? {} : { limit: flags.limit }),
      });
      if (run.json) {
        run.printJson(result);
        return;
      }
      run.lines(askLines(result));
      if (result.note !== null) run.note(`note: ${result.note}`);
    });
  examples(ask, [
    'satchel ask "what did the last run conclude?" -w demo',
    'SATCHEL_LLM_URL=http://127.0.0.1:11434 SATCHEL_LLM_MODEL=llama3.2 satchel ask "where is the db config?"',
  ]);
}
