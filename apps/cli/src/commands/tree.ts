/** The tree of a workspace: `ls`, `mkdir`, `rm`, `mv`, `cp`. */
import { normalizePath } from '@satchel/client/paths.js';
import type { FileInfo } from '@satchel/core';
import type { Command } from 'commander';
import { type Context, lockTokenOption, positiveInt } from '../context.js';
import { examples, humanSize, shortTime, table } from '../format.js';

interface LsFlags {
  readonly at?: string;
  readonly recursive?: boolean;
  readonly glob?: string;
  readonly limit?: number;
  readonly cursor?: string;
}

interface RmFlags {
  readonly lockToken?: number;
  readonly recursive?: boolean;
  readonly ifMatch?: number;
}

interface MoveFlags {
  readonly lockToken?: number;
  readonly overwrite?: boolean;
  readonly ifMatch?: number;
}

/** Names relative to the listed directory for a plain listing; whole paths for subtrees. */
function shownPath(item: FileInfo, dir: string, relative: boolean): string {
  const suffix = item.type === 'directory' ? '/' : '';
  const prefix = dir === '/' ? '/' : `${dir}/`;
  if (!relative || !item.path.startsWith(prefix)) return `${item.path}${suffix}`;
  return `${item.path.slice(prefix.length)}${suffix}`;
}

function lsRow(item: FileInfo, dir: string, relative: boolean): string[] {
  const directory = item.type === 'directory';
  return [
    directory ? 'd' : '-',
    directory ? '-' : humanSize(item.size),
    String(item.seq),
    shortTime(item.modifiedAt),
    shownPath(item, dir, relative),
  ];
}

export function registerTreeCommands(program: Command, ctx: Context): void {
  const ls = program
    .command('ls')
    .alias('list')
    .description('list a directory: type, size, version, modified (UTC), name')
    .summary('list files')
    .argument('[path]', 'directory (or file) in the workspace', '/')
    .option('-r, --recursive', 'list the whole subtree')
    .option('--glob <pattern>', 'only paths matching the glob (relative to PATH, e.g. "**/*.md")')
    .option('--at <seq|snapshot>', 'list the workspace as it was at a seq or snapshot')
    .option('--limit <n>', 'at most N entries (default 100, max 1000)', positiveInt)
    .option('--cursor <cursor>', 'continue a listing where the previous page ended')
    .action(async (path: string, flags: LsFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const dir = normalizePath(path);
      const page = await (await run.satchel()).list(ws, {
        ...run.call(),
        path: dir,
        recursive: flags.recursive === true,
        glob: flags.glob,
        at: flags.at,
        limit: flags.limit,
        cursor: flags.cursor,
      });
      if (run.json) {
        run.printJson(page);
        return;
      }
      const relative = flags.recursive !== true && flags.glob === undefined;
      const rows = page.items.map((item) => lsRow(item, dir, relative));
      run.lines(table(rows, ['left', 'right', 'right', 'left', 'left']));
      // Past the first page the offset is unknown (cursors are opaque), so only the total is told.
      run.more(
        page.nextCursor,
        flags.cursor === undefined
          ? `${page.total - page.items.length} more`
          : `more of ${page.total}`,
      );
    });
  examples(ls, [
    'satchel ls',
    'satchel ls /reports -r',
    'satchel ls --glob "**/*.md" --json',
    'satchel ls -r --at before-run',
  ]);

  const mkdir = program
    .command('mkdir')
    .description('create a directory and any missing parents (no error if it exists)')
    .summary('create a directory')
    .argument('<path>', 'directory in the workspace')
    .addOption(lockTokenOption())
    .action(async (path: string, flags: { readonly lockToken?: number }, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const info = await (await run.satchel()).mkdir(ws, path, {
        ...run.call(),
        lockToken: flags.lockToken,
      });
      if (run.json) run.printJson(info);
      else run.out(`created directory ${info.path} (version ${info.seq})`);
    });
  examples(mkdir, ['satchel mkdir /reports/2025']);

  const rm = program
    .command('rm')
    .description('delete a file or directory; history is kept, so `satchel restore` brings it back')
    .summary('delete a file or directory')
    .argument('<path>', 'file or directory in the workspace')
    .option('-r, --recursive', 'delete a non-empty directory with everything in it')
    .option('--if-match <version>', 'delete only if the head is still this version', positiveInt)
    .addOption(lockTokenOption())
    .action(async (path: string, flags: RmFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const result = await (await run.satchel()).remove(ws, path, {
        ...run.call(),
        recursive: flags.recursive === true,
        ifMatch: flags.ifMatch,
        lockToken: flags.lockToken,
      });
      const removed = normalizePath(path);
      if (run.json) {
        run.printJson({ path: removed, ...result });
        return;
      }
      const entries = result.removed === 1 ? '1 entry' : `${result.removed} entries`;
      run.out(`removed ${removed} (${entries}, version ${result.seq})`);
    });
  examples(rm, ['satchel rm /draft.md', 'satchel rm /tmp -r']);

  const mv = program
    .command('mv')
    .alias('move')
    .description('move or rename a file or directory; its history follows')
    .summary('move or rename a file or directory')
    .argument('<from>', 'source path')
    .argument('<to>', 'destination path')
    .option('--overwrite', 'replace an existing file at the destination')
    .option(
      '--if-match <version>',
      'move only if the source head is still this version',
      positiveInt,
    )
    .addOption(lockTokenOption())
    .action(async (from: string, to: string, flags: MoveFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const info = await (await run.satchel()).move(ws, from, to, {
        ...run.call(),
        overwrite: flags.overwrite === true,
        ifMatch: flags.ifMatch,
        lockToken: flags.lockToken,
      });
      if (run.json) run.printJson(info);
      else run.out(`moved ${normalizePath(from)} -> ${info.path} (version ${info.seq})`);
    });
  examples(mv, ['satchel mv /draft.md /final.md', 'satchel mv /in /archive/in --overwrite']);

  const cp = program
    .command('cp')
    .alias('copy')
    .description('copy a file or directory (content is shared, not duplicated)')
    .summary('copy a file or directory')
    .argument('<from>', 'source path')
    .argument('<to>', 'destination path')
    .option('--overwrite', 'replace an existing file at the destination')
    .addOption(lockTokenOption())
    .action(async (from: string, to: string, flags: MoveFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const info = await (await run.satchel()).copy(ws, from, to, {
        ...run.call(),
        overwrite: flags.overwrite === true,
        lockToken: flags.lockToken,
      });
      if (run.json) run.printJson(info);
      else run.out(`copied ${normalizePath(from)} -> ${info.path} (version ${info.seq})`);
    });
  examples(cp, ['satchel cp /template.md /notes/today.md']);
}
