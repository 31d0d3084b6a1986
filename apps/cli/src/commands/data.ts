/** The data directory as a whole: `satchel status` (what is here, what next) and `satchel fsck`. */
import type { Satchel, WhoAmI } from '@satchel/core';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { EXIT_DAMAGED } from '../errors.js';
import { examples, table } from '../format.js';

async function countWorkspaces(satchel: Satchel): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await satchel.listWorkspaces({ limit: 1000, cursor });
    count += page.items.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return count;
}

/** `admin (user, administrator)`, `bot (agent, key 3f2a…)`. */
function actingAs(me: WhoAmI): string {
  const traits: string[] = [me.kind];
  if (me.admin) traits.push('administrator');
  if (me.key !== null) traits.push(`key ${me.key.id}`);
  return `${me.principal} (${traits.join(', ')})`;
}

export function registerDataCommands(program: Command, ctx: Context): void {
  const status = program
    .command('status')
    .alias('start')
    .description(
      'open (creating if needed) the data directory and show who you act as and what to do ' +
        'next; on the first start, print the admin key (once)',
    )
    .summary('show the data directory and what to do next')
    .action(async (_flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      // Taken before satchel(), so the key is shown here rather than in its generic note.
      const adminKey = await run.takeCreatedAdminKey();
      const satchel = await run.satchel();
      const me = await satchel.whoami();
      const workspaces = await countWorkspaces(satchel);
      const selected = run.globals.workspace ?? ctx.env.workspace ?? null;
      const server = run.serverUrl();
      const where: [string, string] =
        server === null ? ['data directory', run.dataDir()] : ['server', server];
      if (adminKey !== null) {
        run.note(
          `first start: created the admin key; it is saved in ${await run.adminKeyFile()} (mode 0600) ` +
            'and will not be shown again',
        );
      }
      if (run.json) {
        run.printJson({
          ...(server === null ? { data: run.dataDir() } : { server }),
          workspaces,
          workspace: selected,
          whoami: me,
          adminKey,
        });
        return;
      }
      const facts = [where, ['acting as', actingAs(me)], ['workspaces', String(workspaces)]];
      if (selected !== null) facts.push(['workspace', selected]);
      if (adminKey !== null) facts.push(['admin key', adminKey]);
      const ws = selected ?? 'NAME';
      const steps =
        workspaces === 0 && selected === null
          ? [
              ['satchel ws create NAME', 'create a workspace'],
              ['satchel put FILE -w NAME', 'store a file in it'],
            ]
          : [
              ['satchel ws ls', 'list workspaces'],
              [`satchel put FILE -w ${ws}`, 'store a file'],
              [`satchel ls -r -w ${ws}`, 'list its files'],
            ];
      run.lines(table(facts));
      run.out('');
      run.out('next steps:');
      run.lines(table([...steps, ['satchel --help', 'every command']]).map((l) => `  ${l}`));
    });
  examples(status, [
    'satchel status',
    'SATCHEL_DATA=/srv/satchel satchel status --json',
    'satchel status --as "$(cat agent.key)"',
  ]);

  const fsck = program
    .command('fsck')
    .description(
      're-hash all stored content and check every version refers to existing content; ' +
        'exit 8 when content is missing or corrupt',
    )
    .summary('check all stored content (exit 8 on damage)')
    .action(async (_flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const report = await (await run.satchel()).fsck();
      if (!report.ok) run.exitCode = EXIT_DAMAGED;
      if (run.json) {
        run.printJson(report);
        return;
      }
      run.out(`checked ${report.blobsChecked} blobs, ${report.versionsChecked} versions`);
      for (const c of report.corrupt) run.out(`corrupt  ${c.hash}  ${c.reason}`);
      for (const m of report.missing) {
        run.out(`missing  ${m.workspace}:${m.path}@${m.seq}  ${m.hash}`);
      }
      if (report.orphans.length > 0) {
        run.out(
          `note: ${report.orphans.length} orphaned blobs (content no version refers to, ` +
            'left by deleted workspaces or interrupted writes); harmless',
        );
      }
      run.out(
        report.ok
          ? 'ok'
          : `damaged: ${report.corrupt.length} corrupt, ${report.missing.length} missing`,
      );
    });
  examples(fsck, ['satchel fsck', 'satchel fsck --json']);
}
