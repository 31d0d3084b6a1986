/** Who has which role in a workspace: `members add|ls|rm` (owners manage, members see). */
import type { Role } from '@satchel/core';
import { RoleSchema } from '@satchel/core/schemas';
import { Argument, type Command } from 'commander';
import type { Context } from '../context.js';
import { examples, shortTime, table } from '../format.js';

export function registerMemberCommands(program: Command, ctx: Context): void {
  const members = program
    .command('members')
    .description('add, list and remove members of the selected workspace (-w)')
    .summary('manage workspace members');
  examples(members, [
    'satchel members add alice editor -w demo',
    'satchel members ls -w demo',
    'satchel members rm alice -w demo',
  ]);

  const add = members
    .command('add')
    .alias('set')
    .description(
      'give a principal a role in the workspace, or change its role (owners): viewers read, ' +
        'editors also write and lock, owners also manage members, transfers and the audit log',
    )
    .argument('<name>', 'principal (see `satchel principals ls`)')
    .addArgument(new Argument('<role>', 'role in the workspace').choices(RoleSchema.options))
    .action(async (name: string, role: Role, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const member = await (await run.satchel()).setMember(ws, name, role, run.call());
      if (run.json) run.printJson(member);
      else run.out(`${member.principal} is now ${member.role} of ${ws}`);
    });
  examples(add, ['satchel members add alice editor -w demo', 'satchel members set bob owner']);

  const ls = members
    .command('ls')
    .alias('list')
    .description('list the members of the workspace: principal, kind, role, since')
    .action(async (_flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const items = await (await run.satchel()).listMembers(ws);
      if (run.json) {
        run.printJson({ items });
        return;
      }
      run.lines(table(items.map((m) => [m.principal, m.kind, m.role, shortTime(m.since)])));
    });
  examples(ls, ['satchel members ls -w demo', 'satchel members ls --json']);

  const rm = members
    .command('rm')
    .alias('remove')
    .description('remove a member from the workspace (owners); the last owner cannot be removed')
    .argument('<name>', 'principal')
    .action(async (name: string, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      await (await run.satchel()).removeMember(ws, name, run.call());
      if (run.json) run.printJson({ removed: name, workspace: ws });
      else run.out(`removed ${name} from ${ws}`);
    });
  examples(rm, ['satchel members rm alice -w demo']);
}
