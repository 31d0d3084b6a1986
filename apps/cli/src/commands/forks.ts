/** `fork` and `merge`: a workspace from another's state at a seq, and merging one into the other. */
import type { MergeChange, MergeConflict, MergePreview } from '@satchel/core';
import type { Command } from 'commander';
import type { Context, Invocation } from '../context.js';
import { usageError } from '../errors.js';
import { examples, table } from '../format.js';

interface ForkFlags {
  readonly at?: string;
}

interface MergeFlags {
  readonly into?: string;
  readonly apply?: boolean;
  readonly label?: string;
  readonly message?: string;
}

function seqOf(state: MergeChange['from']): string {
  if (state === null) return 'none';
  return state.deleted ? `${state.seq} (deleted)` : String(state.seq);
}

function changeRow(change: MergeChange): string[] {
  return [change.action, change.path, `${seqOf(change.from)} → ${seqOf(change.to)}`];
}

function conflictRow(conflict: MergeConflict): string[] {
  const kept = conflict.keptAs === null ? '' : ` (theirs kept as ${conflict.keptAs})`;
  return [conflict.reason, conflict.path + kept];
}

function printPreview(run: Invocation, preview: MergePreview): void {
  const { summary } = preview;
  run.out(
    `merge of ${preview.from} (seq ${preview.fromHead}) into ${preview.into} (head ${preview.head}): ` +
      `${summary.create} to create, ${summary.modify} to modify, ${summary.delete} to delete, ` +
      `${summary.conflicts} conflicts, ${summary.unchanged} unchanged`,
  );
  run.lines(table(preview.changes.map(changeRow)).map((line) => `  ${line}`));
  if (preview.conflicts.length > 0) {
    run.out(`left as ${preview.into} has them (both sides changed them):`);
    run.lines(table(preview.conflicts.map(conflictRow)).map((line) => `  ${line}`));
  }
  if (preview.truncated) run.note('… more paths than listed; the counts above cover them all');
}

export function registerForkCommands(program: Command, ctx: Context): void {
  const fork = program
    .command('fork')
    .description(
      'make NEW, a workspace you own, from WS as it is (or was --at a seq or snapshot). Content ' +
        'is shared, not copied; NEW starts with the same versions and its seqs continue from the ' +
        'fork point. Needs read on WS.',
    )
    .summary('fork a workspace')
    .argument('<ws>', 'the workspace to fork')
    .argument('<new>', 'the new workspace')
    .option('--at <seq|snapshot>', 'fork the workspace as it was then (default: its head)')
    .action(async (ws: string, name: string, flags: ForkFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const made = await (await run.satchel()).forkWorkspace(ws, name, {
        ...run.call(),
        ...(flags.at === undefined ? {} : { at: flags.at }),
      });
      if (run.json) run.printJson(made);
      else
        run.out(`forked ${made.source} at seq ${made.at} into ${made.name} (${made.files} paths)`);
    });
  examples(fork, [
    'satchel fork research research-try',
    'satchel fork research retry --at before-run',
    'satchel fork research research-try --json',
  ]);

  const merge = program
    .command('merge')
    .description(
      'merge FORK into its source (or --into WS: a fork into its source, or a source into its ' +
        'fork). Compares each path three ways against what both last shared: paths only FORK ' +
        "changed are written; paths both changed stay as the target has them, with FORK's " +
        'version kept beside (name.conflict-FORK-TIME.ext). Shows the plan and writes nothing ' +
        'unless --apply; applied, it is one seq, as a session of its own that undo takes back.',
    )
    .summary('preview and apply a merge')
    .argument('<fork>', 'the workspace to merge in')
    .option('--into <ws>', "the target (default: FORK's source)")
    .option('--apply', 'write the changes (default: preview only)')
    .option(
      '--label <name>',
      "the merge's session label (default: SATCHEL_SESSION, else merge:<seq>)",
    )
    .option('-m, --message <text>', 'note stored with every version the merge writes')
    .action(async (from: string, flags: MergeFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const satchel = await run.satchel();
      const into = flags.into ?? (await sourceOf(satchel, from));
      const preview = await satchel.previewMerge(into, from, run.call());
      if (!flags.apply) {
        if (run.json) run.printJson(preview);
        else {
          printPreview(run, preview);
          const writes = preview.changes.length + preview.conflicts.filter((c) => c.keptAs).length;
          if (writes > 0) run.note('preview only: add --apply to write these changes');
        }
        return;
      }
      const label = flags.label ?? ctx.env.session;
      const result = await satchel.merge(into, from, {
        ifHead: preview.head,
        ifFromHead: preview.fromHead,
        ...(label === undefined ? {} : { session: label }),
        ...(flags.message === undefined ? {} : { message: flags.message }),
      });
      if (run.json) {
        run.printJson(result);
        return;
      }
      printPreview(run, result);
      if (result.seq === null) run.out('nothing to merge');
      else {
        run.out(`merged in seq ${result.seq} of ${into} as session ${result.session}`);
        run.note(`to take it back: satchel undo -w ${into} --session ${result.session} --apply`);
      }
    });
  examples(merge, [
    'satchel merge research-try',
    'satchel merge research-try --apply',
    'satchel merge research-try --into research --apply --json',
    "satchel merge research --into research-try     # bring the source's changes into the fork",
  ]);
}

async function sourceOf(
  satchel: Awaited<ReturnType<Invocation['satchel']>>,
  fork: string,
): Promise<string> {
  const info = await satchel.getWorkspace(fork);
  if (info.fork === null) {
    throw usageError(
      `${fork} is not a fork`,
      'say which workspace to merge it into with --into WS',
    );
  }
  return info.fork.source;
}
