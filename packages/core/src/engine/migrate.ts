/**
 * `satchel migrate`: copies a data directory's metadata (its SQLite database) into PostgreSQL,
 * resumably, and verifies the copy. Content stays in the data directory's blob folder, which the
 * PostgreSQL deployment keeps using (docs/deploy.md). The SQL is in store/metadata/copy.ts.
 *
 * Guarantees: the source is held with its write lock for the whole run, so it cannot change
 * under the copy; a target that holds rows this migration did not put there is refused; an
 * interrupted run (signal, kill -9, lost connection) continues where its last committed page
 * ended, and is refused if the source changed meanwhile (a digest of every row); the copy is
 * accepted only when row counts match, fsck is clean and the audit chain verifies.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SatchelError } from '@satchel/client/errors.js';
import type { FsckReport } from '@satchel/client/schemas/index.js';
import { AuditLog } from '../audit/audit-log.js';
import { UNSCOPED } from '../kernel/actor.js';
import type { EngineContext } from '../kernel/context.js';
import { FsBlobStore } from '../store/fs-blob-store.js';
import {
  COPIED_TABLES,
  type CopiedTable,
  type CopyMark,
  type CopySource,
  CopyTarget,
  instanceId,
  pageRows,
  withSourceLocked,
} from '../store/metadata/copy.js';
import type { MetadataStore } from '../store/metadata/metadata-store.js';
import { redactUrl } from '../store/metadata/postgres.js';
import {
  BLOBS_DIR,
  DATABASE_FILE,
  openMetadata,
  type PostgresConfig,
} from '../store/open-stores.js';
import { fsck } from './fsck.js';
import { AUDIT_CHECKPOINT_FILE, DEFAULT_LIMITS } from './open.js';

export interface MigrateOptions {
  /** The data directory to copy from (its SQLite database; its blobs stay where they are). */
  readonly data: string;
  /** The PostgreSQL database to copy into. */
  readonly target: PostgresConfig;
  /** Rows per page for every table (default: the table's own, usually 1000). */
  readonly pageRows?: number;
  /** Stops the copy after the page being written commits (AbortError); a re-run continues. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: MigrateProgress) => void;
  readonly clock?: () => number;
}

export interface MigrateProgress {
  readonly phase: 'scan' | 'copy' | 'verify';
  /** The table being copied (phase copy). */
  readonly table: string | null;
  /** Rows in the target so far, of `total` rows to copy. */
  readonly done: number;
  readonly total: number;
}

export interface TableCount {
  readonly table: string;
  readonly source: number;
  readonly target: number;
}

export interface MigrateReport {
  readonly ok: true;
  readonly source: { readonly data: string; readonly instance: string };
  /** The target's URL, password redacted, and schema. */
  readonly target: { readonly url: string; readonly schema: string | null };
  /** False on the first run; true when an interrupted run was continued. */
  readonly resumed: boolean;
  /** Rows this run inserted. */
  readonly copied: number;
  readonly tables: readonly TableCount[];
  readonly fsck: FsckReport;
  readonly audit: { readonly entries: number; readonly checkpoint: string };
  /** Where the content stays: the data directory's blob folder. */
  readonly blobs: string;
}

/**
 * Copies the metadata of `options.data` into `options.target` and verifies it. NOT_FOUND
 * without a database in `data`; CONFLICT for a target holding other data or another source's
 * migration, for a source that changed since an interrupted run, or for a source another process
 * is writing to; UNAVAILABLE for an unreachable target; INTEGRITY when verification fails;
 * an AbortError when `signal` stops it.
 */
export async function migrateToPostgres(options: MigrateOptions): Promise<MigrateReport> {
  const data = resolve(options.data);
  const file = join(data, DATABASE_FILE);
  if (!existsSync(file)) {
    throw new SatchelError(
      'NOT_FOUND',
      `no Satchel data directory at ${data} (no ${DATABASE_FILE})`,
      {
        data,
      },
    );
  }
  const source = await openMetadata({ kind: 'sqlite', file });
  try {
    await source.migrate();
    const instance = await instanceId(source);
    const target = await openMetadata(options.target);
    try {
      await target.migrate();
      return await withSourceLocked(source, (locked) =>
        new Migration(options, data, instance, locked, target).run(),
      );
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

class Migration {
  readonly #target: CopyTarget;
  readonly #clock: () => number;

  constructor(
    private readonly options: MigrateOptions,
    private readonly data: string,
    private readonly instance: string,
    private readonly source: CopySource,
    private readonly store: MetadataStore,
  ) {
    this.#target = new CopyTarget(store);
    this.#clock = options.clock ?? Date.now;
  }

  #progress(phase: MigrateProgress['phase'], table: string | null, done: number, total: number) {
    this.options.onProgress?.({ phase, table, done, total });
  }

  async run(): Promise<MigrateReport> {
    const counts = await this.source.counts();
    const total = sum(counts);
    this.#progress('scan', null, 0, total);
    const digest = await this.source.digest();
    let mark = await this.#target.mark();
    const resumed = mark !== null;
    if (mark === null) {
      await this.#refuseOccupied();
      mark = {
        source: { instance: this.instance, path: this.data, digest },
        startedAt: this.#clock(),
        table: null,
        after: null,
        copied: {},
        finishedAt: null,
      };
      await this.#target.setMark(mark);
    } else {
      this.#refuseOtherSource(mark, digest);
    }
    const copied = await this.#copy(mark, total);
    await this.#target.syncIdentities();
    this.#progress('verify', null, total, total);
    const verified = await this.#verify(counts);
    const done = await this.#target.mark();
    if (done) await this.#target.setMark({ ...done, finishedAt: this.#clock() });
    return {
      ok: true,
      source: { data: this.data, instance: this.instance },
      target: {
        url: redactUrl(this.options.target.url),
        schema: this.options.target.schema ?? null,
      },
      resumed,
      copied,
      ...verified,
      blobs: join(this.data, BLOBS_DIR),
    };
  }

  async #refuseOccupied(): Promise<void> {
    const occupied = await this.#target.occupied();
    const tables = Object.entries(occupied);
    if (tables.length === 0) return;
    const what = tables.map(([table, n]) => `${n} ${table}`).join(', ');
    throw new SatchelError(
      'CONFLICT',
      `the target database is not empty (${what}): satchel migrate copies only into an empty database`,
      {
        reason: 'target_not_empty',
        occupied,
        hint: 'point --to-database (and --to-schema) at a new, empty database or schema',
      },
    );
  }

  #refuseOtherSource(mark: CopyMark, digest: string): void {
    if (mark.source.instance !== this.instance) {
      throw new SatchelError(
        'CONFLICT',
        `the target database is being migrated from another data directory (${mark.source.path}, ` +
          `instance ${mark.source.instance}), not from ${this.data}`,
        {
          reason: 'other_source',
          hint: 'finish that migration, or use a new, empty database or schema for this one',
        },
      );
    }
    if (mark.finishedAt !== null) {
      throw new SatchelError(
        'CONFLICT',
        `the target database already holds a finished migration of ${this.data} ` +
          `(${new Date(mark.finishedAt).toISOString()}); it may be in use since`,
        { reason: 'already_migrated', hint: 'nothing to do; point SATCHEL_DATABASE_URL at it' },
      );
    }
    if (mark.source.digest !== digest) {
      throw new SatchelError(
        'CONFLICT',
        `the data directory ${this.data} changed since the interrupted migration into this target ` +
          'began, so the copy cannot continue',
        {
          reason: 'source_changed',
          hint: 'drop the target schema (or database), create it empty, and run satchel migrate again',
        },
      );
    }
  }

  /** Copies every table from where `mark` left off; returns the rows inserted. */
  async #copy(start: CopyMark, total: number): Promise<number> {
    let mark = start;
    let inserted = 0;
    const startIndex =
      mark.table === null
        ? 0
        : mark.table === ALL_COPIED
          ? COPIED_TABLES.length
          : COPIED_TABLES.findIndex((t) => t.table === mark.table);
    if (startIndex < 0) {
      throw new SatchelError('INTERNAL', `the migration mark names an unknown table ${mark.table}`);
    }
    for (const spec of COPIED_TABLES.slice(startIndex)) {
      let after = spec.table === mark.table ? mark.after : null;
      const limit = pageRows(spec, this.options.pageRows);
      this.#progress('copy', spec.table, sum(mark.copied), total);
      for (;;) {
        this.options.signal?.throwIfAborted();
        const page = await this.source.page(spec, after, limit);
        if (page.rows.length === 0) break;
        after = page.after;
        mark = {
          ...mark,
          table: spec.table,
          after,
          copied: {
            ...mark.copied,
            [spec.table]: (mark.copied[spec.table] ?? 0) + page.rows.length,
          },
        };
        await this.#target.writePage(spec, page.rows, mark);
        inserted += page.rows.length;
        this.#progress('copy', spec.table, sum(mark.copied), total);
        if (page.rows.length < limit) break;
      }
      // The next table starts from its beginning, also after an interruption right here.
      mark = { ...mark, table: nextTable(spec), after: null };
      await this.#target.setMark(mark);
    }
    return inserted;
  }

  /** Row counts, fsck and the audit chain on the target; INTEGRITY naming what differs. */
  async #verify(
    sourceCounts: Record<string, number>,
  ): Promise<Pick<MigrateReport, 'tables' | 'fsck' | 'audit'>> {
    const targetCounts = await this.#target.counts();
    const tables = COPIED_TABLES.map(({ table }) => ({
      table,
      source: sourceCounts[table] ?? 0,
      target: targetCounts[table] ?? 0,
    }));
    const unequal = tables.filter((t) => t.source !== t.target);
    if (unequal.length > 0) {
      const what = unequal.map((t) => `${t.table} ${t.source} → ${t.target}`).join(', ');
      throw new SatchelError(
        'INTEGRITY',
        `the copy differs from the source in row counts: ${what}`,
        {
          reason: 'counts',
          tables: unequal,
        },
      );
    }
    const blobs = await FsBlobStore.open(join(this.data, BLOBS_DIR));
    const report = await fsck(this.#context(blobs));
    if (!report.ok) {
      throw new SatchelError(
        'INTEGRITY',
        `fsck on the target found ${report.corrupt.length} corrupt and ${report.missing.length} missing blobs`,
        { reason: 'fsck', fsck: report },
      );
    }
    // The data directory's checkpoint names the source's newest entry: the copy must hold it.
    const audit = await new AuditLog({
      store: this.store,
      run: (op) => this.store.transaction(op),
      checkpointFile: join(this.data, AUDIT_CHECKPOINT_FILE),
    }).verify();
    if (!audit.ok) {
      throw new SatchelError(
        'INTEGRITY',
        `the audit chain on the target is broken at entry ${audit.index}: ${audit.reason}`,
        { reason: 'audit', index: audit.index },
      );
    }
    return {
      tables,
      fsck: report,
      audit: { entries: audit.entries, checkpoint: audit.checkpoint },
    };
  }

  /** What fsck reads through: the target store and the data directory's content, nothing written. */
  #context(blobs: FsBlobStore): EngineContext {
    return {
      store: this.store,
      blobs,
      clock: this.#clock,
      limits: DEFAULT_LIMITS,
      actor: {
        principalId: 'migrate',
        name: 'migrate',
        kind: 'user',
        admin: true,
        keyId: null,
        scope: UNSCOPED,
      },
      commit: () => {
        throw new SatchelError('INTERNAL', 'verification of a migration writes nothing');
      },
    };
  }
}

/** The mark's table once every table is copied. */
const ALL_COPIED = '*';

function nextTable(spec: CopiedTable): string {
  const index = COPIED_TABLES.indexOf(spec);
  return COPIED_TABLES[index + 1]?.table ?? ALL_COPIED;
}

function sum(counts: Readonly<Record<string, number>>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}
