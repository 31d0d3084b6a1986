/** Your invitations to join workspaces: `invitations ls|accept|decline`. */
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { examples, table } from '../format.js';
import { invitationRow } from './members.js';

export function registerInvitationCommands(program: Command, ctx: Context): void {
  const invitations = program
    .command('invitations')
    .description(
      'invitations to join workspaces, addressed to you (the key in use): an owner’s ' +
        '`satchel members add` makes you a member only once you accept',
    )
    .summary('accept or decline invitations to workspaces');
  examples(invitations, [
    'satchel invitations ls',
    'satchel invitations accept 6f1c…',
    'satchel invitations decline 6f1c…',
  ]);

  const ls = invitations
    .command('ls')
    .alias('list')
    .description('list your pending invitations: id, workspace, role, inviter, expiry')
    .action(async (_flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const items = await (await run.satchel()).listInvitations();
      if (run.json) run.printJson({ items });
      else if (items.length === 0) run.out('no pending invitations');
      else run.lines(table(items.map((i) => invitationRow(i, 'workspace'))));
    });
  examples(ls, ['satchel invitations ls', 'satchel invitations ls --json']);

  const accept = invitations
    .command('accept')
    .description('accept an invitation and become a member of its workspace')
    .argument('<id>', 'invitation id (see `satchel invitations ls`)')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const joined = await (await run.satchel()).acceptInvitation(id, run.call());
      if (run.json) run.printJson(joined);
      else run.out(`you are now ${joined.role} of ${joined.workspace}`);
    });
  examples(accept, ['satchel invitations accept 6f1c…', 'satchel invitations accept 6f1c… --json']);

  const decline = invitations
    .command('decline')
    .description('decline an invitation; nothing else changes')
    .argument('<id>', 'invitation id')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      await (await run.satchel()).declineInvitation(id, run.call());
      if (run.json) run.printJson({ declined: id });
      else run.out(`declined invitation ${id}`);
    });
  examples(decline, ['satchel invitations decline 6f1c…']);
}
