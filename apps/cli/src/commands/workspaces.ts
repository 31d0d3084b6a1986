/** `satchel ws …`: create, list, inspect and delete workspaces. */
import { type Command, Option } from 'commander';
import { type Context, positiveInt } from '../context.js';
import { usageError } from '../errors.js';
import { examples, humanSize, shortTime, table } from '../format.js';

const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
};

/** A quota flag: a count or size (`500`, `10M`, `2GiB`: binary units), or `none` to remove it. */
function quotaLimit(value: string): number | null {
  if (/^(none|unlimited)$/i.test(value)) return null;
  const match = /^([0-9]+)\s*([kmgt]?)(i?b)?$/i.exec(value.trim());
  const unit = SIZE_UNITS[(match?.[2] ?? '').toLowerCase()];
  const limit = match && unit ? Number(match[1]) * unit : Number.NaN;
  if (!Number.isSafeInteger(limit)) {
    throw usageError(`invalid quota: ${value}`, 'give a number (10M, 2G for bytes) or none');
  }
  return limit;
}

// Quota flags stay strings until the action: commander turns a parser's null into ''.
interface SetFlags {
  readonly indexing?: 'on' | 'off';
  readonly quotaBytes?: string;
  readonly quotaHistoryBytes?: string;
  readonly quotaFiles?: string;
}

const parsedQuota = (value: string | undefined) =>
  value === undefined ? undefined : quotaLimit(value);

/** A quota for people: the limit, or "none". */
function shownLimit(limit: number | null, size: boolean): string {
  if (limit === null) return 'none';
  return size ? humanSize(limit) : String(limit);
}

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
          ['quota bytes', shownLimit(found.settings.quotaBytes, true)],
          ['quota history', shownLimit(found.settings.quotaHistoryBytes, true)],
          ['quota files', shownLimit(found.settings.quotaFiles, false)],
        ]),
      );
    });
  examples(info, ['satchel ws info demo', 'satchel ws info demo --json']);

  const set = ws
    .command('set')
    .description('change workspace settings: search indexing on or off (owners); quotas (admins)')
    .argument('[name]', 'workspace name (default: -w / SATCHEL_WORKSPACE)')
    .addOption(
      new Option('--indexing <on|off>', 'off drops the search index; on rebuilds it').choices([
        'on',
        'off',
      ]),
    )
    .option('--quota-bytes <size>', 'limit the bytes of the current files (none: no limit)')
    .option(
      '--quota-history-bytes <size>',
      'limit the bytes of every version kept (none: no limit)',
    )
    .option('--quota-files <n>', 'limit the number of current files (none: no limit)')
    .action(async (name: string | undefined, flags: SetFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      if (Object.values(flags).every((value) => value === undefined)) {
        throw usageError(
          'nothing to set',
          'pass a setting, e.g. --indexing off or --quota-bytes 10G',
        );
      }
      const updated = await (await run.satchel()).updateWorkspace(name ?? run.workspace(), {
        ...run.call(),
        indexing: flags.indexing,
        quotaBytes: parsedQuota(flags.quotaBytes),
        quotaHistoryBytes: parsedQuota(flags.quotaHistoryBytes),
        quotaFiles: parsedQuota(flags.quotaFiles),
      });
      if (run.json) {
        run.printJson(updated);
        return;
      }
      const s = updated.settings;
      run.out(
        `workspace ${updated.name}: indexing ${s.indexing}, quotas: ` +
          `bytes ${shownLimit(s.quotaBytes, true)}, history ${shownLimit(s.quotaHistoryBytes, true)}, ` +
          `files ${shownLimit(s.quotaFiles, false)}`,
      );
    });
  examples(set, [
    'satchel ws set demo --indexing off',
    'satchel ws set demo --quota-bytes 10G --quota-files 100000',
    'satchel ws set demo --quota-history-bytes none',
  ]);

  const usage = ws
    .command('usage')
    .description(
      'what a workspace stores: bytes current, with history, deduplicated; files; quotas',
    )
    .argument('[name]', 'workspace name (default: -w / SATCHEL_WORKSPACE)')
    .action(async (name: string | undefined, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const u = await (await run.satchel()).getWorkspaceUsage(name ?? run.workspace());
      if (run.json) {
        run.printJson(u);
        return;
      }
      // A row names its quota only when one is set.
      const row = (label: string, value: string, limit: number | null, size: boolean) =>
        limit === null ? [label, value] : [label, value, `of ${shownLimit(limit, size)}`];
      run.lines(
        table(
          [
            row('current', humanSize(u.currentBytes), u.quota.bytes, true),
            row('with history', humanSize(u.historyBytes), u.quota.historyBytes, true),
            row('deduplicated', humanSize(u.deduplicatedBytes), null, true),
            row('files', String(u.files), u.quota.files, false),
          ],
          ['left', 'right', 'left'],
        ),
      );
    });
  examples(usage, ['satchel ws usage demo', 'satchel ws usage demo --json']);

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
