/** `undo`: preview taking back a session's (or a principal's, or everyone's) changes; apply it. */
import type { UndoChange, UndoConflict, UndoPreview, UndoTarget } from '@satchel/core';
import { type Command, Option } from 'commander';
import type { Context, Invocation } from '../context.js';
import { colorDiff, examples, table } from '../format.js';

interface UndoFlags {
  readonly session?: string;
  readonly principal?: string;
  readonly since?: string;
  readonly snapshot?: string;
  readonly sinceTime?: string;
  readonly apply?: boolean;
  readonly force?: boolean;
  readonly diff?: boolean;
  readonly label?: string;
  readonly message?: string;
}

function targetOf(flags: UndoFlags): UndoTarget {
  const since = flags.since ?? flags.snapshot;
  return {
    ...(flags.session === undefined ? {} : { session: flags.session }),
    ...(flags.principal === undefined ? {} : { principal: flags.principal }),
    ...(since === undefined ? {} : { since }),
    ...(flags.sinceTime === undefined ? {} : { sinceTime: flags.sinceTime }),
  };
}

function describeTarget(flags: UndoFlags, preview: UndoPreview): string {
  const parts: string[] = [];
  if (flags.session !== undefined) parts.push(`session ${flags.session}`);
  if (flags.principal !== undefined) parts.push(`by ${flags.principal}`);
  parts.push(`after seq ${preview.since}`);
  return parts.join(', ');
}

function seqOf(state: UndoChange['from']): string {
  if (state === null) return 'none';
  return state.deleted ? `${state.seq} (deleted)` : String(state.seq);
}

function changeRow(change: UndoChange): string[] {
  const forced = change.forced ? '  (forced)' : '';
  return [change.action, change.path, `${seqOf(change.from)} → ${seqOf(change.to)}${forced}`];
}

function conflictRow(conflict: UndoConflict): string[] {
  const who =
    conflict.theirs === null
      ? ''
      : ` (head ${seqOf(conflict.theirs)} by ${conflict.theirs.author})`;
  return [conflict.reason, conflict.path + who];
}

function printPreview(run: Invocation, flags: UndoFlags, preview: UndoPreview): void {
  const { summary } = preview;
  run.out(
    `undo of ${describeTarget(flags, preview)} (head ${preview.head}): ` +
      `${summary.revert} to revert, ${summary.delete} to delete, ${summary.recreate} to recreate, ` +
      `${summary.conflicts} conflicts, ${summary.unchanged} already as they were`,
  );
  run.lines(table(preview.changes.map(changeRow)).map((line) => `  ${line}`));
  if (preview.conflicts.length > 0) {
    run.out('left as they are (someone else changed them; --force reverts changed_since):');
    run.lines(table(preview.conflicts.map(conflictRow)).map((line) => `  ${line}`));
  }
  if (preview.truncated) run.note('… more paths than listed; the counts above cover them all');
  if (flags.diff) {
    for (const change of preview.changes) {
      if (change.diff) run.io.stdout.write(colorDiff(change.diff, run.color));
      else if (change.diffNote) run.out(`(${change.path}: no diff, ${change.diffNote})`);
    }
  }
}

export function registerUndoCommand(program: Command, ctx: Context): void {
  const undo = program
    .command('undo')
    .description(
      'take back changes: a session, a principal since a point, or everything since a seq or ' +
        'snapshot. Shows what would change and writes nothing unless --apply; paths someone ' +
        'else changed since are left as they are (conflicts) unless --force. Applied, every ' +
        'change is one new version in one seq, as a session of its own that can be undone.',
    )
    .summary('preview and apply an undo')
    // Here --session names the session to undo; the undo's own label is --label.
    .option('--session <name>', 'undo the changes made in this session')
    .option('--principal <name>', 'only changes by this principal')
    .option('--since <seq|snapshot>', 'only changes after this seq or snapshot')
    .option('--snapshot <name>', 'same as --since NAME')
    .addOption(new Option('--since-time <iso>', 'only changes at or after this time (ISO 8601)'))
    .option('--apply', 'write the changes (default: preview only)')
    .option('--force', 'also revert paths someone else changed since (their changes are lost)')
    .option('--diff', 'print a diff per text file')
    .option(
      '--label <name>',
      "the undo's own session label (default: SATCHEL_SESSION, else undo:<seq>)",
    )
    .option('-m, --message <text>', 'note stored with every version the undo writes')
    .action(async (flags: UndoFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const satchel = await run.satchel();
      const target = targetOf(flags);
      const force = flags.force ?? false;
      const preview = await satchel.previewUndo(ws, target, { force, diff: flags.diff ?? false });
      if (!flags.apply) {
        if (run.json) run.printJson(preview);
        else {
          printPreview(run, flags, preview);
          if (preview.changes.length > 0)
            run.note('preview only: add --apply to write these changes');
        }
        return;
      }
      const label = flags.label ?? ctx.env.session;
      const result = await satchel.undo(ws, target, {
        ifHead: preview.head,
        force,
        diff: flags.diff ?? false,
        ...(label === undefined ? {} : { session: label }),
        ...(flags.message === undefined ? {} : { message: flags.message }),
      });
      if (run.json) {
        run.printJson(result);
        return;
      }
      printPreview(run, flags, result);
      if (result.seq === null) run.out('nothing to undo');
      else {
        run.out(`undone in seq ${result.seq} as session ${result.session}`);
        run.note(`to take it back: satchel undo --session ${result.session} --apply`);
      }
    });
  examples(undo, [
    'satchel undo --session run-42',
    'satchel undo --session run-42 --diff',
    'satchel undo --session run-42 --apply',
    'satchel undo --principal agent-7 --since 120 --apply',
    'satchel undo --since before-run --apply --json',
    'satchel undo --session undo:131 --apply',
  ]);
}
