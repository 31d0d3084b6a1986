/** `satchel ws …`: create, list, inspect and delete workspaces. */
import { type Command, Option } from 'commander';
import { type Context, positiveInt } from '../context.js';
import { usageError } from '../errors.js';
import { examples, humanSize, shortTime, table } from '../format.js';

interface PageFlags {
  readonly limit?: number;
  readonly cursor?: string;
}

export function registerWorkspaceCommands(program: Command, ctx: Context): void {
  const ws = program
    .command('ws')
    .description('create, list, inspect and delete workspaces')
    .summary('manage workspaces');
  examples(ws, ['satchel ws create demo', 'satchel ws ls', 'satchel ws info demo']);

  const create = ws
    .command('create')
    .description('create an empty workspace (names: a-z, 0-9, ".", "_", "-")')
    .argument('<name>', 'workspace name')
    .action(async (name: string, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const created = await (await run.satchel()).createWorkspace(name, run.call());
      if (run.json) run.printJson(created);
      else run.out(`created workspace ${created.name}`);
    });
  examples(create, ['satchel ws create demo', 'export SATCHEL_WORKSPACE=demo']);

  const ls = ws
    .command('ls')
    .alias('list')
    .description('list workspaces: name, seq (newest version), created')
    .option('--limit <n>', 'at most N workspaces (default 100, max 1000)', positiveInt)
    .option('--cursor <cursor>', 'continue a listing where the previous page ended')
    .action(async (flags: PageFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const page = await (await run.satchel()).listWorkspaces({
        limit: flags.limit,
        cursor: flags.cursor,
      });
      if (run.json) {
        run.printJson(page);
        return;
      }
      const rows = page.items.map((w) => [w.name, String(w.seq), shortTime(w.createdAt)]);
      run.lines(table(rows, ['left', 'right', 'left']));
      if (page.items.length === 0 && flags.cursor === undefined) {
        run.note('no workspaces yet; create one with `satchel ws create NAME`');
      }
      run.more(page.nextCursor, 'more workspaces');
    });
  examples(ls, ['satchel ws ls', 'satchel ws ls --json']);

  const info = ws
    .command('info')
    .description('show a workspace: files, directories, bytes, versions, seq')
    .argument('[name]', 'workspace name (default: -w / SATCHEL_WORKSPACE)')
    .action(async (name: string | undefined, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = name ?? run.workspace();
      const found = await (await run.satchel()).getWorkspace(ws);
      if (run.json) {
        run.printJson(found);
        return;
      }
      run.lines(
        table([
          ['name', found.name],
          ['created', shortTime(found.createdAt)],
          ['seq', String(found.seq)],
          ['files', String(found.files)],
          ['directories', String(found.directories)],
          ['size', humanSize(found.bytes)],
          ['versions', String(found.versions)],
          ['indexing', found.settings.indexing],
        ]),
      );
    });
  examples(info, ['satchel ws info demo', 'satchel ws info demo --json']);

  const set = ws
    .command('set')
    .description('change workspace settings (owners): search indexing on or off')
    .argument('[name]', 'workspace name (default: -w / SATCHEL_WORKSPACE)')
    .addOption(
      new Option('--indexing <on|off>', 'off drops the search index; on rebuilds it').choices([
        'on',
        'off',
      ]),
    )
    .action(
      async (
        name: string | undefined,
        flags: { readonly indexing?: 'on' | 'off' },
        cmd: Command,
      ) => {
        const run = ctx.invocation(cmd);
        if (flags.indexing === undefined) {
          throw usageError('nothing to set', 'pass a setting, e.g. --indexing off');
        }
        const updated = await (await run.satchel()).updateWorkspace(name ?? run.workspace(), {
          ...run.call(),
          indexing: flags.indexing,
        });
        if (run.json) run.printJson(updated);
        else run.out(`workspace ${updated.name}: indexing ${updated.settings.indexing}`);
      },
    );
  examples(set, ['satchel ws set demo --indexing off', 'satchel ws set demo --indexing on']);

  const rm = ws
    .command('rm')
    .alias('remove')
    .description('delete a workspace with all its files and history (needs --yes)')
    .argument('<name>', 'workspace name')
    .option('-y, --yes', 'really delete it')
    .action(async (name: string, flags: { readonly yes?: boolean }, cmd: Command) => {
      const run = ctx.invocation(cmd);
      if (flags.yes !== true) {
        throw usageError(
          `refusing to delete workspace ${name} without --yes`,
          `this deletes every file and version in it; run \`satchel ws rm ${name} --yes\``,
        );
      }
      await (await run.satchel()).deleteWorkspace(name, run.call());
      if (run.json) run.printJson({ deleted: name });
      else run.out(`deleted workspace ${name}`);
    });
  examples(rm, ['satchel ws rm demo --yes']);
}
