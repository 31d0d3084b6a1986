/** `satchel sync DIR` (once, or `--watch`) and `satchel sync status DIR`: core's sync engine. */
import { relative, resolve, sep } from 'node:path';
import type { SyncMode, SyncReport } from '@satchel/core';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Context, Invocation } from '../context.js';
import { EXIT_CODES, usageError } from '../errors.js';
import { examples, humanSize } from '../format.js';
import { type Progress, progressBar, progressEnabled } from '../progress.js';

interface SyncFlags {
  readonly watch?: boolean;
  readonly mode?: SyncMode;
  readonly force?: boolean;
  readonly label?: string;
  readonly maxDelete?: number;
  readonly acceptIgnore?: boolean;
  readonly deleteRestored?: boolean;
}

/**
 * Files a one-shot sync moves from which the process keeps its heap compact (`Io.compactHeap`).
 * Below, the heap stays small anyway, and compacting it cost a 10,000-file rehydrate ~1 s of
 * CPU (a quarter of it) for no less memory (docs/benchmarks.md, issue 19).
 */
const COMPACT_FROM_FILES = 20_000;

function share(value: string): number {
  const match = /^(\d{1,3})%?$/.exec(value.trim());
  const n = match ? Number(match[1]) : Number.NaN;
  if (!(n >= 0 && n <= 100)) throw new InvalidArgumentError('must be a percentage from 0 to 100');
  return n / 100;
}

/** The data directory as a folder of the synced one (`a/b`), when it lies inside it. */
function dataDirInside(dir: string, dataDir: string): string[] {
  const rel = relative(dir, dataDir);
  if (rel === '' || rel.startsWith('..') || resolve(dir, rel) !== dataDir) return [];
  return [rel.split(sep).join('/')];
}

/** One line a person reads after a cycle. */
export function summary(report: SyncReport, dir: string): string {
  const parts = [
    `${report.uploaded} up${report.deduplicated > 0 ? ` (${report.deduplicated} by hash)` : ''}`,
    `${report.downloaded} down`,
  ];
  if (report.deletedRemote > 0) parts.push(`${report.deletedRemote} deleted in the workspace`);
  if (report.deletedLocal > 0) parts.push(`${report.deletedLocal} deleted here`);
  if (report.conflicts.length > 0) {
    parts.push(`${report.conflicts.length} conflict${report.conflicts.length === 1 ? '' : 's'}`);
  }
  if (report.retry > 0) parts.push(`${report.retry} left for the next cycle`);
  const bytes = report.bytesUp + report.bytesDown;
  const reset = report.reset ? ' (restored: fresh or reset tree)' : '';
  return `synced ${dir} with ${report.workspace}${reset}: ${parts.join(', ')} (${humanSize(bytes)} in ${(report.durationMs / 1000).toFixed(1)}s)`;
}

/** Conflicts, skipped entries and a guard stop, for people, on stderr. */
function details(run: Invocation, report: SyncReport, dir: string): void {
  for (const c of report.conflicts) {
    run.note(
      `conflict ${c.path}: the workspace version is at the path, yours is kept as ${c.keptAs}`,
    );
  }
  for (const s of report.skipped) run.note(`skipped ${s.path} (${s.reason.replace('_', ' ')})`);
  for (const n of report.notices) run.note(`warning: ${n.path} ${n.detail}`);
  if (report.stoppedReason === 'mass_delete') {
    run.note(
      `satchel: sync stopped: it would delete ${report.plannedDeletes} of ${report.knownFiles} ` +
        'synced files, more than allowed (--max-delete, default 50%); nothing was changed',
    );
    run.note(`hint: if ${dir} is meant to lose those files, run again with --force`);
  }
}

function exitCodeOf(report: SyncReport): number {
  if (report.stoppedReason !== null || report.conflicts.length > 0) return EXIT_CODES.CONFLICT;
  return 0;
}

export function registerSyncCommands(program: Command, ctx: Context): void {
  const sync = program
    .command('sync')
    .description(
      'keep a directory and a workspace in step: three-way against the last synced state kept ' +
        'in DIR/.satchel-sync/, conditional writes, conflicts kept side by side as ' +
        'NAME.conflict-LABEL-TIME.EXT (exit 4). An empty DIR is restored, never taken for ' +
        'deletions. `satchel sync status DIR` shows the state and the conflicts kept.',
    )
    .summary('sync a directory with a workspace')
    .usage('[options] DIR | status DIR')
    .argument('<dir>', 'directory to sync (or `status`)')
    .argument('[status-dir]', 'with `status`: the directory')
    .option('--watch', 'keep syncing: file events and the workspace change feed, until stopped')
    .addOption(
      new Option(
        '--mode <mode>',
        'two-way-safe (default), push (DIR → workspace), pull (workspace → DIR)',
      ).choices(['two-way-safe', 'push', 'pull']),
    )
    .option('--force', 'apply a cycle even when it deletes more than --max-delete of the files')
    .option(
      '--max-delete <percent>',
      'largest share of synced files one cycle may delete (default 50%)',
      share,
    )
    .option(
      '--accept-ignore',
      'apply the .satchelignore DIR holds now though the workspace changed it (until then ' +
        'sync keeps the rules you accepted and warns)',
    )
    .option(
      '--delete-restored',
      'files missing from DIR that look restored (all mtimes new, or gitignored) are deletions ' +
        'after all: delete them from the workspace instead of bringing them back',
    )
    .option(
      '--label <label>',
      'names this side in conflict copies (default: the session, else the host)',
    )
    .action(async (dir: string, statusDir: string | undefined, flags: SyncFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      // The sync engine is the client's (no storage engine): a sandbox syncing with a server
      // loads no more than it needs.
      const { folderPattern, LocalTree, RemoteSatchel, syncOnce, syncStatus, watchSync } =
        await import('@satchel/client');
      const { uploadThreshold } = await import('../uploads.js');
      if (dir === 'status') {
        if (statusDir === undefined)
          throw usageError('sync status needs a DIR', 'e.g. `satchel sync status ./work`');
        const status = await syncStatus(new LocalTree(resolve(run.io.cwd, statusDir)));
        if (run.json) return run.printJson(status);
        if (status.workspace === null) return run.out(`${statusDir} was never synced`);
        run.out(
          `${statusDir}: workspace ${status.workspace}, ${status.files} files, last synced ` +
            `${status.lastSyncAt ?? 'never'}, at seq ${status.cursor}`,
        );
        for (const c of status.conflicts) {
          run.out(`conflict ${c.path} (${c.time}, ${c.label}): yours kept as ${c.keptAs}`);
        }
        return;
      }
      if (statusDir !== undefined) throw usageError(`unexpected argument ${statusDir}`);
      const root = resolve(run.io.cwd, dir);
      const workspace = run.workspace();
      const satchel = await run.satchel();
      const session = run.call().session;
      const options = {
        satchel,
        workspace,
        tree: new LocalTree(root),
        mode: flags.mode ?? 'two-way-safe',
        label: flags.label ?? session ?? 'local',
        force: flags.force ?? false,
        exclude: dataDirInside(root, run.dataDir()).map(folderPattern),
        acceptIgnore: flags.acceptIgnore ?? false,
        deleteRestored: flags.deleteRestored ?? false,
        ...(flags.maxDelete === undefined ? {} : { maxDeleteShare: flags.maxDelete }),
        ...(session === undefined ? {} : { session }),
        // Large files to a server go resumably: a reset sandbox's next sync picks them up.
        ...(satchel instanceof RemoteSatchel
          ? { resumableAbove: uploadThreshold(ctx.env.uploadThreshold) }
          : {}),
      };
      const report = (r: SyncReport) => {
        if (run.json) run.printJson(r);
        else if (
          r.uploaded + r.downloaded + r.deletedLocal + r.deletedRemote + r.conflicts.length > 0 ||
          !flags.watch
        ) {
          run.out(summary(r, dir));
        }
        details(run, r, dir);
      };
      let compacted = false;
      const compact = () => {
        if (!compacted) run.io.compactHeap?.();
        compacted = true;
      };
      if (!flags.watch) {
        // Drawn once the plan is known: files and bytes to move, so the bar has a total and an ETA.
        const drawn: { bar?: Progress } = {};
        let files = '';
        let bytes = 0;
        let resumed = 0;
        let result: SyncReport;
        try {
          result = await syncOnce({
            ...options,
            onProgress: (p) => {
              if (p.total >= COMPACT_FROM_FILES) compact();
              files = `${p.done}/${p.total} files`;
              drawn.bar ??= progressBar({
                stream: run.io.stderr,
                enabled: progressEnabled(run.io),
                label: `sync ${dir}`,
                total: p.totalBytes,
                detail: () => files,
              });
              drawn.bar.resumedToo(p.resumed - resumed);
              resumed = p.resumed;
              drawn.bar.add(p.bytes - bytes);
              bytes = p.bytes;
            },
          });
        } finally {
          drawn.bar?.stop();
        }
        report(result);
        run.exitCode = exitCodeOf(result);
        return;
      }
      const untilStopped = run.io.untilStopped;
      if (untilStopped === undefined)
        throw usageError('--watch runs until the process is stopped; run it as a process');
      // A watch runs for hours: its heap stays close to what is live from the start.
      compact();
      const controller = new AbortController();
      const stopped = untilStopped().then(() => controller.abort());
      let worst = 0;
      await watchSync({
        ...options,
        signal: controller.signal,
        onCycle: (r) => {
          report(r);
          worst = Math.max(worst, exitCodeOf(r));
        },
        onError: (error) =>
          run.note(
            `satchel: sync: ${error instanceof Error ? error.message : String(error)} (retrying)`,
          ),
      });
      await stopped;
      run.exitCode = worst;
    });
  examples(sync, [
    'satchel sync ./work -w demo',
    'satchel sync ./work -w demo --watch',
    'satchel sync ./replica -w demo --mode pull',
    'satchel sync status ./work --json',
  ]);
}
