/** File content in and out: `cat`, `put`, `get`, `append`, `edit`. */
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { baseName } from '@satchel/client/paths.js';
import type { FileInfo } from '@satchel/core';
import type { Command } from 'commander';
import { type Context, copyTo, lockTokenOption, positiveInt } from '../context.js';
import { usageError } from '../errors.js';
import { colorDiff, examples } from '../format.js';
import { localTarget, openLocal, writeLocalAtomically } from '../local.js';
import { type Progress, progressBar, progressEnabled } from '../progress.js';

interface CatFlags {
  readonly version?: number;
  readonly at?: string;
  readonly head?: number;
  readonly tail?: number;
}

interface PutFlags {
  readonly lockToken?: number;
  readonly ifMatch?: number;
  readonly createOnly?: boolean;
  readonly message?: string;
}

interface AppendFlags {
  readonly lockToken?: number;
  readonly ifMatch?: number;
  readonly newline: boolean;
  readonly message?: string;
}

interface EditFlags {
  readonly lockToken?: number;
  readonly old: string;
  readonly new: string;
  readonly all?: boolean;
  readonly dryRun?: boolean;
  readonly ifMatch?: number;
  readonly message?: string;
}

const STDIO = '-';

/** Size of a local file for the progress bar (null if it cannot be told: no total shown). */
async function localSize(cwd: string, local: string): Promise<number | null> {
  const found = await stat(resolve(cwd, local)).catch(() => null);
  return found?.isFile() ? found.size : null;
}

/** Awaits `transfer`, then ends the bar's line, whether the transfer worked or not. */
async function stopping<T>(bar: Progress, transfer: Promise<T>): Promise<T> {
  try {
    return await transfer;
  } finally {
    bar.stop();
  }
}

/** `put LOCAL [PATH]`: PATH defaults to /<name of LOCAL>; a PATH ending in "/" is a directory. */
function putTarget(local: string, path: string | undefined): string {
  if (local === STDIO && (path === undefined || path.endsWith('/'))) {
    throw usageError(
      'put from stdin (-) needs a file PATH',
      'e.g. `echo hello | satchel put - /notes/hello.txt`',
    );
  }
  if (path === undefined) return `/${basename(local)}`;
  return path.endsWith('/') ? `${path}${basename(local)}` : path;
}

export function registerFileCommands(program: Command, ctx: Context): void {
  const cat = program
    .command('cat')
    .description('print a file (raw bytes), or its first/last lines with --head/--tail')
    .summary('print a file')
    .argument('<path>', 'file in the workspace')
    .option('--version <n>', 'read version N instead of the head', positiveInt)
    .option('--at <seq|snapshot>', 'read the file as it was at a seq or snapshot')
    .option('--head <n>', 'only the first N lines (text files)', positiveInt)
    .option('--tail <n>', 'only the last N lines (text files)', positiveInt)
    .action(async (path: string, flags: CatFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const satchel = await run.satchel();
      if (flags.head !== undefined || flags.tail !== undefined) {
        const slice = await satchel.readText(ws, path, {
          ...run.call(),
          version: flags.version,
          at: flags.at,
          head: flags.head,
          tail: flags.tail,
        });
        run.io.stdout.write(slice.text);
        return;
      }
      const file = await satchel.readFile(ws, path, {
        ...run.call(),
        version: flags.version,
        at: flags.at,
      });
      await copyTo(file.body, run.io.stdout);
    });
  examples(cat, [
    'satchel cat /notes.md',
    'satchel cat /log.txt --tail 20',
    'satchel cat /a.bin --version 3 > a.bin',
    'satchel cat /report.md --at before-run',
  ]);

  const put = program
    .command('put')
    .description('upload a local file (streamed; any size) as a new version')
    .summary('upload a local file or stdin')
    .argument('<local>', `local file, or "${STDIO}" for stdin`)
    .argument(
      '[path]',
      'workspace path (default: /<name of LOCAL>; ending in "/": into that directory)',
    )
    .option('--if-match <version>', 'write only if the head is still this version', positiveInt)
    .option('--create-only', 'fail if the file already exists')
    .option('-m, --message <text>', 'note stored with the version')
    .addOption(lockTokenOption())
    .action(async (local: string, path: string | undefined, flags: PutFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const target = putTarget(local, path);
      const satchel = await run.satchel();
      const { putResumable, resumes, uploadThreshold } = await import('../uploads.js');
      const source = local === STDIO ? run.io.stdin : await openLocal(run.io.cwd, local);
      const size = local === STDIO ? null : await localSize(run.io.cwd, local);
      const bar = progressBar({
        stream: run.io.stderr,
        enabled: progressEnabled(run.io),
        label: `put ${target}`,
        total: size,
      });
      const options = {
        ...run.call(),
        ifMatch: flags.ifMatch,
        ifNoneMatch: flags.createOnly ? ('*' as const) : undefined,
        message: flags.message,
        lockToken: flags.lockToken,
      };
      let info: FileInfo;
      try {
        // Large files to a server resume after a dropped connection or a new run.
        info =
          size !== null && resumes(satchel, size, uploadThreshold(ctx.env.uploadThreshold))
            ? await putResumable(
                satchel,
                ws,
                target,
                { absolute: resolve(run.io.cwd, local), size },
                options,
                bar,
              )
            : await satchel.writeFile(ws, target, bar.track(source), options);
      } finally {
        bar.stop();
        // A refused write never reads the file; close it anyway. stdin is not ours to close.
        if (source !== run.io.stdin) source.destroy();
      }
      if (run.json) run.printJson(info);
      else run.out(`wrote ${info.path} (${info.size} bytes, version ${info.seq})`);
    });
  examples(put, [
    'satchel put report.pdf',
    'satchel put report.pdf /reports/',
    'satchel put data.csv /in/data.csv --if-match 7',
    'satchel put state.json /state.json --lock-token 42',
    'curl -s https://example.com | satchel put - /pages/example.html',
  ]);

  const get = program
    .command('get')
    .description('download a file to stdout or to a local file (replaced atomically)')
    .summary('download a file')
    .argument('<path>', 'file in the workspace')
    .argument('[local]', `local file or directory (default or "${STDIO}": stdout)`)
    .option('--version <n>', 'download version N instead of the head', positiveInt)
    .action(async (path: string, local: string | undefined, flags: CatFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const satchel = await run.satchel();
      const file = await satchel.readFile(ws, path, {
        ...run.call(),
        version: flags.version,
        at: flags.at,
      });
      const bar = progressBar({
        stream: run.io.stderr,
        enabled: progressEnabled(run.io),
        label: `get ${file.info.path}`,
        total: file.range.end - file.range.start,
      });
      if (local === undefined || local === STDIO) {
        await stopping(bar, copyTo(bar.track(file.body), run.io.stdout));
        return;
      }
      let target: string;
      try {
        target = await localTarget(run.io.cwd, local, baseName(file.info.path));
      } catch (error) {
        file.body.destroy();
        throw error;
      }
      const bytes = await stopping(bar, writeLocalAtomically(target, bar.track(file.body)));
      if (run.json) run.printJson({ ...file.info, local: target });
      else
        run.out(`saved ${file.info.path} (version ${file.info.seq}, ${bytes} bytes) to ${target}`);
    });
  examples(get, [
    'satchel get /reports/q3.pdf .',
    'satchel get /notes.md --version 4 old-notes.md',
    'satchel get /data.csv | wc -l',
  ]);

  const append = program
    .command('append')
    .description('append TEXT (plus a newline) or stdin (as is) to a file, creating it')
    .summary('append text to a file')
    .argument('<path>', 'file in the workspace')
    .argument('[text]', 'text to append; without it, stdin is appended')
    .option('-n, --no-newline', 'do not add a newline after TEXT')
    .option('--if-match <version>', 'append only if the head is still this version', positiveInt)
    .option('-m, --message <text>', 'note stored with the version')
    .addOption(lockTokenOption())
    .action(async (path: string, text: string | undefined, flags: AppendFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const content: string | Readable =
        text === undefined ? run.io.stdin : flags.newline ? `${text}\n` : text;
      const info = await (await run.satchel()).appendFile(ws, path, content, {
        ...run.call(),
        ifMatch: flags.ifMatch,
        message: flags.message,
        lockToken: flags.lockToken,
      });
      if (run.json) run.printJson(info);
      else run.out(`appended to ${info.path} (now ${info.size} bytes, version ${info.seq})`);
    });
  examples(append, ['satchel append /log.md "- step 3 done"', 'date | satchel append /log.md']);

  const edit = program
    .command('edit')
    .description('replace exact text in a file and print the diff (one match, or every with --all)')
    .summary('replace text in a file')
    .argument('<path>', 'text file in the workspace')
    .requiredOption('--old <text>', 'text to find (must match exactly once unless --all)')
    .requiredOption('--new <text>', 'replacement text (may be empty)')
    .option('--all', 'replace every occurrence')
    .option('--dry-run', 'show the diff without writing')
    .option('--if-match <version>', 'edit only if the head is still this version', positiveInt)
    .option('-m, --message <text>', 'note stored with the version')
    .addOption(lockTokenOption())
    .action(async (path: string, flags: EditFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const result = await (await run.satchel()).editFile(
        ws,
        path,
        [{ oldText: flags.old, newText: flags.new, replaceAll: flags.all === true }],
        {
          ...run.call(),
          dryRun: flags.dryRun === true,
          ifMatch: flags.ifMatch,
          message: flags.message,
          lockToken: flags.lockToken,
        },
      );
      if (run.json) {
        run.printJson(result);
        return;
      }
      run.io.stdout.write(colorDiff(result.diff, run.color));
      const { replacements, info } = result;
      run.note(
        result.dryRun
          ? `dry run: ${replacements} replacement(s) in ${info.path}; nothing written`
          : `edited ${info.path}: ${replacements} replacement(s), version ${info.seq}`,
      );
    });
  examples(edit, [
    'satchel edit /config.toml --old "debug = false" --new "debug = true"',
    'satchel edit /notes.md --old TODO --new DONE --all --dry-run',
  ]);
}
