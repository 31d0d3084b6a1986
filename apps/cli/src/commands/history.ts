/** Versions of a file: `log`, `diff`, `restore`. */
import { normalizePath } from '@satchel/client/paths.js';
import type { Version } from '@satchel/core';
import type { Command } from 'commander';
import { type Context, lockTokenOption, positiveInt } from '../context.js';
import { usageError } from '../errors.js';
import { colorDiff, examples, humanSize, shortTime, table } from '../format.js';

interface LogFlags {
  readonly limit?: number;
  readonly cursor?: string;
}

interface DiffFlags {
  readonly from?: number;
  readonly to?: number;
}

interface RedactFlags {
  readonly version?: number;
  readonly all?: boolean;
  readonly yes?: boolean;
}

interface RestoreFlags {
  readonly lockToken?: number;
  readonly ifMatch?: number;
  readonly message?: string;
}

function notes(version: Version, path: string): string {
  const parts: string[] = [];
  // History follows moves, so older versions may live under another path.
  if (version.path !== path) parts.push(`at ${version.path}`);
  if (version.deleted) parts.push('(deleted)');
  if (version.origin) parts.push(`(from ${version.origin.path}@${version.origin.seq})`);
  if (version.session !== null) parts.push(`[${version.session}]`);
  if (version.message !== null) parts.push(JSON.stringify(version.message));
  return parts.join(' ');
}

function logRow(version: Version, path: string): string[] {
  const size = version.deleted || version.type === 'directory' ? '-' : humanSize(version.size);
  const row = [String(version.seq), shortTime(version.time), version.op, version.author, size];
  const extra = notes(version, path);
  return extra === '' ? row : [...row, extra];
}

export function registerHistoryCommands(program: Command, ctx: Context): void {
  const log = program
    .command('log')
    .description('list the versions of a file, newest first: seq, time (UTC), op, author, size')
    .summary('list the versions of a file')
    .argument('<path>', 'file or directory in the workspace (deleted ones too)')
    .option('--limit <n>', 'at most N versions (default 100, max 1000)', positiveInt)
    .option('--cursor <cursor>', 'continue where the previous page ended')
    .action(async (path: string, flags: LogFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const page = await (await run.satchel()).listVersions(ws, path, {
        limit: flags.limit,
        cursor: flags.cursor,
      });
      if (run.json) {
        run.printJson(page);
        return;
      }
      const canonical = normalizePath(path);
      const rows = page.items.map((v) => logRow(v, canonical));
      run.lines(table(rows, ['right', 'left', 'left', 'left', 'right', 'left']));
      run.more(page.nextCursor, 'older versions');
    });
  examples(log, ['satchel log /notes.md', 'satchel log /notes.md --limit 5 --json']);

  const diff = program
    .command('diff')
    .description('unified diff between two versions (default: the head and the version before it)')
    .summary('compare two versions')
    .argument('<path>', 'file in the workspace')
    .option('--from <n>', 'older version (default: the one before --to)', positiveInt)
    .option('--to <n>', 'newer version (default: the head)', positiveInt)
    .action(async (path: string, flags: DiffFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const result = await (await run.satchel()).diff(ws, path, {
        ...run.call(),
        from: flags.from,
        to: flags.to,
      });
      if (run.json) {
        run.printJson(result);
        return;
      }
      if (result.diff === '') {
        run.note(`no differences between versions ${result.from ?? 'none'} and ${result.to}`);
        return;
      }
      run.io.stdout.write(colorDiff(result.diff, run.color));
    });
  examples(diff, ['satchel diff /notes.md', 'satchel diff /notes.md --from 3 --to 7']);

  const restore = program
    .command('restore')
    .description('make version N of a file the head again (as a new version; nothing is lost)')
    .summary('bring back an old version')
    .argument('<path>', 'file or directory in the workspace')
    .argument('<version>', 'version to bring back (see `satchel log PATH`)', positiveInt)
    .option('--if-match <version>', 'restore only if the head is still this version', positiveInt)
    .option('-m, --message <text>', 'note stored with the version')
    .addOption(lockTokenOption())
    .action(async (path: string, seq: number, flags: RestoreFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const info = await (await run.satchel()).restore(ws, path, seq, {
        ...run.call(),
        ifMatch: flags.ifMatch,
        message: flags.message,
        lockToken: flags.lockToken,
      });
      if (run.json) run.printJson(info);
      else run.out(`restored ${info.path} to version ${seq} (new version ${info.seq})`);
    });
  examples(restore, ['satchel log /notes.md', 'satchel restore /notes.md 4']);

  const redact = program
    .command('redact')
    .description(
      'remove the content of a version (or of every version) of a file for good (owners): ' +
        'reads of it fail with REDACTED (exit 3), its metadata and the audit trail stay, and ' +
        'the next `satchel gc` removes the bytes unless another file holds them',
    )
    .summary('remove a version’s content for good')
    .argument('<path>', 'file in the workspace')
    .option('--version <n>', 'the version whose content goes (see `satchel log PATH`)', positiveInt)
    .option('--all', 'every version of the file, the head included')
    .option('--yes', 'confirm: this cannot be undone')
    .action(async (path: string, flags: RedactFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      if (flags.yes !== true) {
        throw usageError(
          'redact removes content for good and needs --yes',
          `e.g. \`satchel redact ${path} --version N --yes\``,
        );
      }
      const result = await (await run.satchel()).redact(ws, path, {
        ...run.call(),
        version: flags.version,
        all: flags.all,
      });
      if (run.json) run.printJson(result);
      else if (result.seqs.length === 0) run.out(`nothing left to redact in ${result.path}`);
      else run.out(`redacted ${result.path} at version(s) ${result.seqs.join(', ')}`);
    });
  examples(redact, [
    'satchel redact /config.env --version 4 --yes',
    'satchel redact /leak.txt --all --yes && satchel gc --grace 0s',
  ]);
}
