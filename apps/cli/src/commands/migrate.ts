/** `satchel migrate`: copy the data directory's metadata into PostgreSQL (core: migrateToPostgres). */
import { type MigrateReport, migrateToPostgres, type PostgresConfig } from '@satchel/core';
import type { Command } from 'commander';
import type { Context, Invocation } from '../context.js';
import { usageError } from '../errors.js';
import { examples, table } from '../format.js';
import { type Progress, progressBar, progressEnabled } from '../progress.js';

interface MigrateFlags {
  readonly toDatabase?: string;
  readonly toSchema?: string;
  readonly toBlobs?: string;
}

/** Exit code of a run stopped by SIGINT/SIGTERM (128 + SIGINT): the copy so far is kept. */
const EXIT_INTERRUPTED = 130;

function target(flags: MigrateFlags): PostgresConfig {
  if (flags.toBlobs !== undefined) {
    throw usageError(
      '--to-blobs is not supported yet: content stays in the data directory',
      'drop --to-blobs; the PostgreSQL deployment keeps using the data directory for content',
    );
  }
  const url = flags.toDatabase;
  if (url === undefined) {
    throw usageError(
      'missing --to-database URL',
      'pass the PostgreSQL database to copy into: --to-database postgres://user@host:5432/db',
    );
  }
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw usageError(`--to-database must be a postgres:// URL, not ${url}`);
  }
  return {
    kind: 'postgres',
    url,
    ...(flags.toSchema === undefined ? {} : { schema: flags.toSchema }),
  };
}

function printReport(run: Invocation, report: MigrateReport): void {
  const where = report.target.schema === null ? '' : ` (schema ${report.target.schema})`;
  run.out(`migrated ${report.source.data} to ${report.target.url}${where}`);
  if (report.resumed)
    run.out(`continued an interrupted migration: ${report.copied} rows copied now`);
  run.lines(
    table([
      ['table', 'source', 'target'],
      ...report.tables.map((t) => [t.table, String(t.source), String(t.target)]),
    ]),
  );
  run.out(
    `fsck ok: ${report.fsck.blobsChecked} blobs, ${report.fsck.versionsChecked} versions checked`,
  );
  run.out(
    `audit chain ok: ${report.audit.entries} entries (checkpoint ${report.audit.checkpoint})`,
  );
  run.out(`content stays in ${report.blobs}`);
  run.note(
    `next: run satchel serve with SATCHEL_DATABASE_URL set to this database and SATCHEL_DATA=${report.source.data} ` +
      '(its blobs, admin key and webhook key stay there)',
  );
}

export function registerMigrateCommand(program: Command, ctx: Context): void {
  const migrate = program
    .command('migrate')
    .description(
      "copy the data directory's metadata (its SQLite database) into an empty PostgreSQL " +
        'database, with progress; an interrupted run continues where it stopped when run again; ' +
        'verified at the end (row counts, fsck, audit chain). Content stays in the data directory',
    )
    .summary('copy the data directory into PostgreSQL')
    .option('--to-database <url>', 'PostgreSQL database to copy into (postgres://user@host/db)')
    .option('--to-schema <name>', "schema to create Satchel's tables in (default: search_path)")
    .option('--to-blobs <dest>', 'not supported yet: content stays in the data directory')
    .action(async (flags: MigrateFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const config = target(flags);
      const controller = new AbortController();
      void run.io.untilStopped?.().then(() => controller.abort());
      // Made at the first report, which knows the total (rows an earlier run copied count as done).
      let bar = null as Progress | null;
      let done = 0;
      let current: string | null = null;
      let report: MigrateReport;
      try {
        report = await migrateToPostgres({
          data: run.dataDir(),
          target: config,
          signal: controller.signal,
          onProgress: (p) => {
            bar ??= progressBar({
              stream: run.io.stderr,
              enabled: progressEnabled(run.io),
              label: 'migrate',
              total: p.total,
              minBytes: 0,
              unit: 'rows',
            });
            bar.add(p.done - done);
            done = p.done;
            // Without a terminal (logs, CI) one line per table says how far it got instead.
            if (!progressEnabled(run.io) && p.table !== null && p.table !== current) {
              current = p.table;
              run.note(`migrate: copying ${p.table} (${p.done} of ${p.total} rows done)`);
            }
          },
        });
      } catch (error) {
        bar?.stop();
        if (error instanceof Error && error.name === 'AbortError') {
          run.note(
            `satchel: migrate interrupted after ${done} rows; run the same command again to continue`,
          );
          run.exitCode = EXIT_INTERRUPTED;
          return;
        }
        throw error;
      }
      bar?.stop();
      if (run.json) run.printJson(report);
      else printReport(run, report);
    });
  examples(migrate, [
    'satchel migrate --to-database postgres://satchel@db.internal:5432/satchel',
    'SATCHEL_DATA=/srv/satchel satchel migrate --to-database "$DATABASE_URL" --json',
    'satchel migrate --data ./.satchel --to-database postgres://postgres@127.0.0.1/satchel --to-schema prod',
  ]);
}
