/**
 * Who has which role in a workspace: `members add|ls|rm|invited` (owners manage, members see).
 * An owner's add is an invitation the invitee accepts (`satchel invitations accept ID`); the
 * admin adds directly.
 */

import { ROLES } from '@satchel/client/schemas/choices.js';
import type { Invitation, MembershipChange, Role } from '@satchel/core';
import { Argument, type Command } from 'commander';
import type { Context } from '../context.js';
import { examples, shortTime, table } from '../format.js';

function changed(change: MembershipChange, ws: string): string {
  if (change.status === 'member') return `${change.principal} is now ${change.role} of ${ws}`;
  return (
    `invited ${change.principal} as ${change.role} of ${ws} until ${shortTime(change.expiresAt)}; ` +
    `they join once they accept: \`satchel invitations accept ${change.id}\``
  );
}

/** One row of an invitation listing. */
export function invitationRow(i: Invitation, who: 'workspace' | 'principal'): string[] {
  return [
    i.id,
    who === 'workspace' ? i.workspace : i.principal,
    i.role,
    `by ${i.invitedBy}`,
    `expires ${shortTime(i.expiresAt)}`,
  ];
}

export function registerMemberCommands(program: Command, ctx: Context): void {
  const members = program
    .command('members')
    .description(
      'invite, list and remove members of the selected workspace (-w); an invited principal ' +
        'joins once it accepts (`satchel invitations`), the admin adds directly',
    )
    .summary('manage workspace members');
  examples(members, [
    'satchel members add alice editor -w demo',
    'satchel members invited -w demo',
    'satchel members ls -w demo',
    'satchel members rm alice -w demo',
  ]);

  const add = members
    .command('add')
    .alias('set')
    .alias('invite')
    .description(
      'invite a principal with a role, or change a member’s role (owners): viewers read, ' +
        'editors also write and lock, owners also manage members, transfers and the audit log. ' +
        'The invitee joins once it accepts (within 7 days); the admin adds directly. ' +
        'The answer is the same whether or not NAME is a principal.',
    )
    .argument('<name>', 'principal (see `satchel principals ls`)')
    .addArgument(new Argument('<role>', 'role in the workspace').choices(ROLES))
    .action(async (name: string, role: Role, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const change = await (await run.satchel()).setMember(ws, name, role, run.call());
      if (run.json) run.printJson(change);
      else run.out(changed(change, ws));
    });
  examples(add, [
    'satchel members add alice editor -w demo',
    'satchel members invite bob viewer --json',
    'satchel members set bob owner',
  ]);

  const invited = members
    .command('invited')
    .alias('pending')
    .description(
      'list the pending invitations to the workspace (owners): id, name, role, inviter, expiry',
    )
    .action(async (_flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const items = await (await run.satchel()).listWorkspaceInvitations(run.workspace());
      if (run.json) run.printJson({ items });
      else run.lines(table(items.map((i) => invitationRow(i, 'principal'))));
    });
  examples(invited, ['satchel members invited -w demo', 'satchel members invited --json']);

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
    .description(
      'remove a member from the workspace, or withdraw its pending invitation (owners); the last owner cannot be removed',
    )
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
