/** `satchel gc`: remove content no version refers to any more (core: collectGarbage). */
import type { GcOptions, GcProgress, GcReport } from '@satchel/core';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Context, Invocation } from '../context.js';
import { examples, humanSize } from '../format.js';
import { type Progress, progressBar, progressEnabled } from '../progress.js';

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `0`, `90`, `90s`, `15m`, `12h`, `2d` → seconds (zero allowed: no grace at all). */
export function graceSeconds(value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  const n = match ? Number(match[1]) * (UNIT_SECONDS[match[2] || 's'] ?? Number.NaN) : Number.NaN;
  if (!Number.isSafeInteger(n)) {
    throw new InvalidArgumentError('must be a duration like 0, 90s, 15m, 1h or 2d');
  }
  return n;
}

interface GcFlags {
  readonly dryRun?: boolean;
  readonly grace?: number;
}

function printReport(run: Invocation, report: GcReport): void {
  const verb = report.dryRun ? 'would remove' : 'removed';
  const files =
    report.unregisteredFiles > 0 ? ` (${report.unregisteredFiles} unregistered files)` : '';
  run.out(`${verb} ${report.removed} contents, ${humanSize(report.bytesFreed)}${files}`);
  if (report.dryRun) for (const hash of report.hashes) run.out(`  ${hash}`);
  if (report.truncated) run.note(`… the list stops at ${report.hashes.length}`);
  if (report.keptInGrace > 0) {
    run.out(
      `kept ${report.keptInGrace} unregistered files seen within the grace period ` +
        `(${report.graceSeconds} s): writes in progress, or removable by a later run`,
    );
  }
  if (report.resumed > 0) run.out(`finished ${report.resumed} deletions of an interrupted run`);
}

export function registerGcCommand(program: Command, ctx: Context): void {
  const gc = program
    .command('gc')
    .description(
      'remove stored content that no version refers to any more (deleted workspaces, writes ' +
        'that never committed), once it is older than the grace period; safe while the server ' +
        'runs and writes go on; one run at a time per database (admins)',
    )
    .summary('remove content no version refers to')
    .option('--dry-run', 'report what would be removed, remove nothing')
    .addOption(
      new Option(
        '--grace <duration>',
        'keep content registered, or first seen unregistered, less than this long ago ' +
          '(default 1h; 0 removes at once)',
      ).argParser(graceSeconds),
    )
    .action(async (flags: GcFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const satchel = await run.satchel();
      let bar: Progress | null = null;
      let examined = 0;
      let phase: GcProgress['phase'] | null = null;
      const onProgress = (p: GcProgress) => {
        if (p.phase !== phase) {
          phase = p.phase;
          examined = 0;
          bar?.stop();
          bar = progressBar({
            stream: run.io.stderr,
            enabled: progressEnabled(run.io),
            label: p.phase === 'registry' ? 'gc registry' : 'gc blob store',
            total: null,
            minBytes: 0,
            unit: 'rows',
          });
        }
        bar?.add(p.examined - examined);
        examined = p.examined;
      };
      const options: GcOptions = {
        ...(flags.dryRun ? { dryRun: true } : {}),
        ...(flags.grace === undefined ? {} : { graceSeconds: flags.grace }),
      };
      // On a data directory the engine reports progress as it goes (GcRunOptions); a server
      // answers once, at the end.
      const local = run.serverUrl() === null ? { onProgress } : {};
      let report: GcReport;
      try {
        report = await satchel.collectGarbage({ ...options, ...local } as GcOptions);
      } finally {
        (bar as Progress | null)?.stop();
      }
      if (run.json) run.printJson(report);
      else printReport(run, report);
    });
  examples(gc, [
    'satchel gc --dry-run',
    'satchel gc',
    'satchel gc --grace 0 --json',
    'SATCHEL_URL=https://satchel.internal SATCHEL_TOKEN="$ADMIN_KEY" satchel gc --dry-run',
  ]);
}
