/** `satchel snapshot …`: name a state of the workspace, list and forget names; `--at` reads one. */
import type { Command } from 'commander';
import { type Context, positiveInt } from '../context.js';
import { examples, shortTime, table } from '../format.js';

interface CreateFlags {
  readonly seq?: number;
  readonly message?: string;
}

interface PageFlags {
  readonly limit?: number;
  readonly cursor?: string;
}

export function registerSnapshotCommands(program: Command, ctx: Context): void {
  const snapshot = program
    .command('snapshot')
    .description(
      'name a state of the workspace (a seq) to read it later with --at; creating one copies nothing',
    )
    .summary('name, list and forget snapshots');
  examples(snapshot, [
    'satchel snapshot create before-run',
    'satchel ls -r --at before-run',
    'satchel cat /report.md --at before-run',
  ]);

  const create = snapshot
    .command('create')
    .description('name the workspace as it is now (or at --seq)')
    .argument('<name>', 'letters, digits, ".", "_", "-"; not only digits')
    .option('--seq <n>', 'name this seq instead of the head', positiveInt)
    .option('-m, --message <text>', 'note stored with the snapshot')
    .action(async (name: string, flags: CreateFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const created = await (await run.satchel()).createSnapshot(ws, name, {
        ...run.call(),
        seq: flags.seq,
        message: flags.message,
      });
      if (run.json) run.printJson(created);
      else run.out(`snapshot ${created.name} names seq ${created.seq} of ${ws}`);
    });
  examples(create, ['satchel snapshot create before-run -m "clean tree"']);

  const ls = snapshot
    .command('ls')
    .alias('list')
    .description('list snapshots, newest seq first: name, seq, created (UTC), by, message')
    .option('--limit <n>', 'at most N snapshots (default 100, max 1000)', positiveInt)
    .option('--cursor <cursor>', 'continue a listing where the previous page ended')
    .action(async (flags: PageFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const page = await (await run.satchel()).listSnapshots(ws, {
        limit: flags.limit,
        cursor: flags.cursor,
      });
      if (run.json) {
        run.printJson(page);
        return;
      }
      const rows = page.items.map((s) => [
        s.name,
        String(s.seq),
        shortTime(s.createdAt),
        s.createdBy,
        s.message ?? '',
      ]);
      run.lines(table(rows, ['left', 'right', 'left', 'left', 'left']));
      if (page.items.length === 0 && flags.cursor === undefined) {
        run.note('no snapshots yet; name one with `satchel snapshot create NAME`');
      }
      run.more(page.nextCursor, 'more snapshots');
    });
  examples(ls, ['satchel snapshot ls', 'satchel snapshot ls --json']);

  const rm = snapshot
    .command('rm')
    .description('forget a snapshot name (the history it named stays)')
    .argument('<name>', 'snapshot name')
    .action(async (name: string, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      await (await run.satchel()).deleteSnapshot(ws, name, run.call());
      if (run.json) run.printJson({ deleted: name });
      else run.out(`forgot snapshot ${name}`);
    });
  examples(rm, ['satchel snapshot rm before-run']);
}
