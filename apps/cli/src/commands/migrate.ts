/**
 * `satchel migrate`: copy the data directory's metadata into PostgreSQL (core: migrateToPostgres)
 * and/or its content into an S3 bucket (core: migrateBlobs).
 */
import type { BlobsConfig, MigrateBlobsReport, MigrateReport, PostgresConfig } from '@satchel/core';
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

function databaseTarget(flags: MigrateFlags): PostgresConfig | null {
  const url = flags.toDatabase;
  if (url === undefined) {
    if (flags.toSchema !== undefined) throw usageError('--to-schema needs --to-database');
    return null;
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

function printReport(run: Invocation, report: MigrateReport, contentMoved = false): void {
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
  if (contentMoved) return;
  run.out(`content stays in ${report.blobs}`);
  run.note(
    `next: run satchel serve with SATCHEL_DATABASE_URL set to this database and SATCHEL_DATA=${report.source.data} ` +
      '(its blobs, admin key and webhook key stay there)',
  );
}

/**
 * A copy stopped by Ctrl-C (AbortError) ends with exit 130 and how to continue; any other error
 * is rethrown.
 */
function interrupted(run: Invocation, error: unknown, progress: string): void {
  if (!(error instanceof Error && error.name === 'AbortError')) throw error;
  run.note(
    `satchel: migrate interrupted after ${progress}; run the same command again to continue`,
  );
  run.exitCode = EXIT_INTERRUPTED;
}

/** Copies the content into `target` (after the metadata, when `metadata` is its report). */
async function copyContent(
  run: Invocation,
  target: BlobsConfig,
  signal: AbortSignal,
  metadata: MigrateReport | null,
): Promise<void> {
  let bar = null as Progress | null;
  let bytes = 0;
  let blobs = 0;
  let report: MigrateBlobsReport;
  const { migrateBlobs } = await import('@satchel/core');
  try {
    report = await migrateBlobs({
      data: run.dataDir(),
      target,
      signal,
      onProgress: (p) => {
        blobs = p.done;
        if (p.phase === 'scan' && !progressEnabled(run.io)) {
          run.note(
            `migrate: copying ${p.total} blobs (content already there is checked and skipped)`,
          );
        }
        if (p.phase !== 'copy') return;
        bar ??= progressBar({
          stream: run.io.stderr,
          enabled: progressEnabled(run.io),
          label: 'content',
          total: null,
          minBytes: 0,
        });
        bar.add(p.bytes - bytes);
        bytes = p.bytes;
      },
    });
  } catch (error) {
    bar?.stop();
    interrupted(run, error, `${blobs} blobs`);
    return;
  }
  bar?.stop();
  if (run.json) {
    run.printJson(metadata === null ? { content: report } : { ...metadata, content: report });
    return;
  }
  if (metadata !== null) printReport(run, metadata, true);
  run.out(
    `content copied to ${report.target}: ${report.copied} blobs (${report.copiedBytes} bytes) copied, ` +
      `${report.skipped} already there`,
  );
  run.out(`verified: ${report.verified} of ${report.blobs} blobs read back intact`);
  run.note(
    `next: run satchel serve with SATCHEL_BLOBS=${report.target}` +
      (metadata === null ? '' : ' and SATCHEL_DATABASE_URL set to the database') +
      ` (the data directory ${run.dataDir()} keeps its copy until you remove it)`,
  );
}

export function registerMigrateCommand(program: Command, ctx: Context): void {
  const migrate = program
    .command('migrate')
    .description(
      "copy the data directory's metadata (its SQLite database) into an empty PostgreSQL " +
        'database, with progress; an interrupted run continues where it stopped when run again; ' +
        'verified at the end (row counts, fsck, audit chain); with --to-blobs, copy its content ' +
        'into an S3-compatible bucket (resumable: content already there intact is skipped; ' +
        'every blob is read back and checked at the end)',
    )
    .summary('copy the data directory into PostgreSQL and/or an S3 bucket')
    .option('--to-database <url>', 'PostgreSQL database to copy into (postgres://user@host/db)')
    .option('--to-schema <name>', "schema to create Satchel's tables in (default: search_path)")
    .option(
      '--to-blobs <store>',
      'copy the content (blob folder) into this S3-compatible bucket, s3://bucket/prefix ' +
        '(endpoint, region, credentials from AWS_ENDPOINT_URL_S3, AWS_REGION, AWS_ACCESS_KEY_ID, …)',
    )
    .action(async (flags: MigrateFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const { blobsConfig, migrateToPostgres } = await import('@satchel/core');
      const config = databaseTarget(flags);
      const blobs = flags.toBlobs === undefined ? null : blobsConfig(flags.toBlobs, run.io.env);
      if (config === null && blobs === null) {
        throw usageError(
          'missing --to-database or --to-blobs',
          'pass the PostgreSQL database to copy into (--to-database postgres://user@host:5432/db), ' +
            'the bucket to copy content into (--to-blobs s3://bucket/prefix), or both',
        );
      }
      const controller = new AbortController();
      void run.io.untilStopped?.().then(() => controller.abort());
      if (config === null) {
        await copyContent(run, blobs as BlobsConfig, controller.signal, null);
        return;
      }
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
        interrupted(run, error, `${done} rows`);
        return;
      }
      bar?.stop();
      if (blobs !== null) {
        await copyContent(run, blobs, controller.signal, report);
        return;
      }
      if (run.json) run.printJson(report);
      else printReport(run, report);
    });
  examples(migrate, [
    'satchel migrate --to-database postgres://satchel@db.internal:5432/satchel',
    'SATCHEL_DATA=/srv/satchel satchel migrate --to-database "$DATABASE_URL" --json',
    'satchel migrate --data ./.satchel --to-database postgres://postgres@127.0.0.1/satchel --to-schema prod',
    'AWS_REGION=eu-central-1 satchel migrate --to-blobs s3://acme-satchel/prod',
    'satchel migrate --to-database "$DATABASE_URL" --to-blobs s3://acme-satchel/prod',
  ]);
}
