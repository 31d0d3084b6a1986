/** Handing a workspace over: `transfer offer|accept|cancel|ls`. */
import type { Transfer } from '@satchel/core';
import type { Command } from 'commander';
import { type Context, durationSeconds } from '../context.js';
import { examples, shortTime, table } from '../format.js';

interface OfferFlags {
  readonly to?: string;
  readonly removeMe?: boolean;
  readonly expiresIn?: number;
}

function becomes(transfer: Transfer): string {
  return transfer.previousOwner === 'editor'
    ? `${transfer.offeredBy} stays as editor`
    : `${transfer.offeredBy} leaves`;
}

function transferRow(t: Transfer): string[] {
  return [
    t.id,
    t.to ?? 'anyone with the code',
    `by ${t.offeredBy}`,
    `expires ${shortTime(t.expiresAt)}`,
    becomes(t),
  ];
}

export function registerTransferCommands(program: Command, ctx: Context): void {
  const transfer = program
    .command('transfer')
    .description(
      'hand a workspace over: an owner offers it, the claimant accepts with the one-time code ' +
        'and becomes owner; the offering owner stays as editor (or leaves, with --remove-me)',
    )
    .summary('transfer ownership of a workspace');
  examples(transfer, [
    'satchel transfer offer --to alice -w demo',
    'satchel transfer accept claim_…',
  ]);

  const offer = transfer
    .command('offer')
    .description(
      'offer the selected workspace (owners) and print the one-time claim code on stdout; ' +
        'it cannot be shown again. At most 5 offers are open per workspace.',
    )
    .option('--to <name>', 'only this principal may accept (default: whoever has the code)')
    .option('--remove-me', 'leave the workspace once accepted (default: stay as editor)')
    .option('--expires-in <duration>', 'e.g. 12h or 7d (default 72h, max 30d)', durationSeconds)
    .action(async (flags: OfferFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const offered = await (await run.satchel()).offerTransfer(ws, {
        ...run.call(),
        to: flags.to,
        previousOwner: flags.removeMe ? 'none' : 'editor',
        expiresInHours: flags.expiresIn === undefined ? undefined : flags.expiresIn / 3600,
      });
      if (run.json) run.printJson(offered);
      else run.out(offered.code);
      run.note(
        `offered ${ws} to ${offered.to ?? 'whoever has the code'} until ` +
          `${shortTime(offered.expiresAt)} (transfer ${offered.id}); the claim code cannot be ` +
          'shown again: they accept with `satchel transfer accept CODE`',
      );
    });
  examples(offer, [
    'satchel transfer offer --to alice -w demo',
    'satchel transfer offer --remove-me --expires-in 7d --json',
  ]);

  const accept = transfer
    .command('accept')
    .description('accept an offer with its claim code: you become owner of its workspace')
    .argument('<code>', 'claim code printed by `satchel transfer offer`')
    .action(async (code: string, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const accepted = await (await run.satchel()).acceptTransfer(code, run.call());
      if (run.json) run.printJson(accepted);
      else run.out(`you now own ${accepted.workspace}; ${becomes(accepted)}`);
    });
  examples(accept, ['satchel transfer accept claim_… --as "$(cat alice.key)"']);

  const cancel = transfer
    .command('cancel')
    .description('withdraw an open offer of the selected workspace (owners)')
    .argument('<id>', 'transfer id (see `satchel transfer ls`)')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const cancelled = await (await run.satchel()).cancelTransfer(ws, id, run.call());
      if (run.json) run.printJson(cancelled);
      else run.out(`cancelled transfer ${cancelled.id} of ${cancelled.workspace}`);
    });
  examples(cancel, ['satchel transfer cancel 6f1c…-… -w demo']);

  const ls = transfer
    .command('ls')
    .alias('list')
    .description('list open offers of the selected workspace (owners): id, for, by, expires, then')
    .action(async (_flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const items = await (await run.satchel()).listTransfers(ws);
      if (run.json) {
        run.printJson({ items });
        return;
      }
      run.lines(table(items.map(transferRow)));
      if (items.length === 0) run.note(`no open transfer offers for ${ws}`);
    });
  examples(ls, ['satchel transfer ls -w demo', 'satchel transfer ls --json']);
}
