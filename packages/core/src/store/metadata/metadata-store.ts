/**
 * MetadataStore: every metadata query Satchel makes, written once in Kysely so that it runs on
 * each dialect (SQLite now, PostgreSQL next). Reads run on the store; writes run on the
 * `MetadataTx` handed to `transaction` or `batch`, so they commit together or not at all.
 */
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { descendantRange } from '../../paths.js';
import type { SqlDialectInfo } from './dialect.js';
import { migrateToLatest } from './migrations.js';
import type {
  BlobsTable,
  Database,
  EntriesTable,
  VersionsTable,
  WorkspacesTable,
} from './tables.js';

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type EntryRow = Selectable<EntriesTable>;
export type VersionRow = Selectable<VersionsTable>;
export type BlobRow = Selectable<BlobsTable>;

/** Version of the on-disk format described in docs/storage.md. */
export const STORAGE_FORMAT = '1';

const FENCE_FLOOR = 'fence_floor';

/** Outcome of one operation of a batch: its value, or the error that rolled back its changes. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Queries usable both outside and inside a transaction. */
export class MetadataQueries {
  constructor(protected readonly db: Kysely<Database>) {}

  /**
   * The query builder, for the domain query modules beside this file (`lock-queries.ts`,
   * `audit-queries.ts`, `access-queries.ts`); code outside `store/metadata` does not use it.
   */
  get kysely(): Kysely<Database> {
    return this.db;
  }

  findWorkspace(name: string): Promise<WorkspaceRow | undefined> {
    return this.db.selectFrom('workspaces').selectAll().where('name', '=', name).executeTakeFirst();
  }

  listWorkspaces(afterName: string | null, limit: number): Promise<WorkspaceRow[]> {
    let q = this.db.selectFrom('workspaces').selectAll().orderBy('name').limit(limit);
    if (afterName !== null) q = q.where('name', '>', afterName);
    return q.execute();
  }

  async workspaceStats(
    workspaceId: string,
  ): Promise<{ files: number; directories: number; bytes: number; versions: number }> {
    const entries = await this.db
      .selectFrom('entries')
      .select((eb) => [
        'type',
        eb.fn.countAll<number>().as('count'),
        eb.fn.coalesce(eb.fn.sum<number>('size'), sql<number>`0`).as('bytes'),
      ])
      .where('workspace_id', '=', workspaceId)
      .groupBy('type')
      .execute();
    const versions = await this.db
      .selectFrom('versions')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    const files = entries.find((e) => e.type === 'file');
    const dirs = entries.find((e) => e.type === 'directory');
    return {
      files: Number(files?.count ?? 0),
      directories: Number(dirs?.count ?? 0),
      bytes: Number(files?.bytes ?? 0),
      versions: Number(versions.count),
    };
  }

  getEntry(workspaceId: string, path: string): Promise<EntryRow | undefined> {
    return this.db
      .selectFrom('entries')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('path', '=', path)
      .executeTakeFirst();
  }

  /** The entries that exist among `paths`, by path. */
  async getEntries(workspaceId: string, paths: readonly string[]): Promise<Map<string, EntryRow>> {
    const rows = await this.db
      .selectFrom('entries')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('path', 'in', paths)
      .execute();
    return new Map(rows.map((row) => [row.path, row]));
  }

  /** Entries directly inside `dir`, or everything beneath it when `recursive`, in path order. */
  listEntries(
    workspaceId: string,
    dir: string,
    recursive: boolean,
    afterPath: string | null,
    limit: number,
  ): Promise<EntryRow[]> {
    let q = this.db
      .selectFrom('entries')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('path')
      .limit(limit);
    if (recursive) {
      const { lo, hi } = descendantRange(dir);
      q = q.where('path', '>=', lo).where('path', '<', hi);
    } else {
      q = q.where('parent', '=', dir);
    }
    if (afterPath !== null) q = q.where('path', '>', afterPath);
    return q.execute();
  }

  async countEntries(workspaceId: string, dir: string, recursive: boolean): Promise<number> {
    let q = this.db
      .selectFrom('entries')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('workspace_id', '=', workspaceId);
    if (recursive) {
      const { lo, hi } = descendantRange(dir);
      q = q.where('path', '>=', lo).where('path', '<', hi);
    } else {
      q = q.where('parent', '=', dir);
    }
    const row = await q.executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** The newest version of `path` (a tombstone if it was deleted last), or one at `seq`. */
  getVersion(workspaceId: string, path: string, seq?: number): Promise<VersionRow | undefined> {
    let q = this.db
      .selectFrom('versions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('path', '=', path);
    q = seq === undefined ? q.orderBy('seq', 'desc').limit(1) : q.where('seq', '=', seq);
    return q.executeTakeFirst();
  }

  /** Versions of `path`, newest first (or oldest first), with seq below `beforeSeq` when given. */
  listVersions(
    workspaceId: string,
    path: string,
    beforeSeq: number | null,
    limit: number,
    order: 'asc' | 'desc' = 'desc',
  ): Promise<VersionRow[]> {
    let q = this.db
      .selectFrom('versions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('path', '=', path)
      .orderBy('seq', order)
      .limit(limit);
    if (beforeSeq !== null) q = q.where('seq', '<', beforeSeq);
    return q.execute();
  }

  /**
   * Versions written after seq `after`, in (seq, path) order — the change feed; with `dir`, only
   * those at or beneath it. `atSeq` returns exactly the versions of one mutation instead.
   */
  listChanges(
    workspaceId: string,
    options: { after?: number; atSeq?: number; limit?: number; dir?: string },
  ): Promise<VersionRow[]> {
    let q = this.db
      .selectFrom('versions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('seq')
      .orderBy('path');
    if (options.atSeq !== undefined) q = q.where('seq', '=', options.atSeq);
    if (options.after !== undefined) q = q.where('seq', '>', options.after);
    if (options.limit !== undefined) q = q.limit(options.limit);
    const dir = options.dir;
    if (dir !== undefined && dir !== '/') {
      const { lo, hi } = descendantRange(dir);
      q = q.where((eb) =>
        eb.or([eb('path', '=', dir), eb.and([eb('path', '>=', lo), eb('path', '<', hi)])]),
      );
    }
    return q.execute();
  }

  getBlob(hash: string): Promise<BlobRow | undefined> {
    return this.db.selectFrom('blobs').selectAll().where('hash', '=', hash).executeTakeFirst();
  }

  /** Blob rows in hash order, without inline data (for fsck). */
  listBlobs(afterHash: string | null, limit: number): Promise<Omit<BlobRow, 'data'>[]> {
    let q = this.db
      .selectFrom('blobs')
      .select(['hash', 'size', 'location', 'chunk_size', 'chunks', 'created_at'])
      .orderBy('hash')
      .limit(limit);
    if (afterHash !== null) q = q.where('hash', '>', afterHash);
    return q.execute();
  }

  /** Inline data of a blob, for fsck's re-hash. */
  async getInlineData(hash: string): Promise<Uint8Array | null> {
    const row = await this.db
      .selectFrom('blobs')
      .select('data')
      .where('hash', '=', hash)
      .executeTakeFirst();
    return row?.data ?? null;
  }

  /** Whether any version refers to `hash`. */
  async isReferenced(hash: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('versions')
      .select('seq')
      .where('hash', '=', hash)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Versions that name a blob the registry lacks (the foreign key forbids it; fsck checks anyway). */
  versionsWithoutBlob(
    limit: number,
  ): Promise<Pick<VersionRow, 'workspace_id' | 'path' | 'seq' | 'hash'>[]> {
    return this.db
      .selectFrom('versions')
      .leftJoin('blobs', 'blobs.hash', 'versions.hash')
      .select(['versions.workspace_id', 'versions.path', 'versions.seq', 'versions.hash'])
      .where('versions.hash', 'is not', null)
      .where('blobs.hash', 'is', null)
      .limit(limit)
      .execute();
  }

  async countVersions(): Promise<number> {
    const row = await this.db
      .selectFrom('versions')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  workspaceNames(): Promise<Pick<WorkspaceRow, 'id' | 'name'>[]> {
    return this.db.selectFrom('workspaces').select(['id', 'name']).execute();
  }
}

/** Writes; only ever handed out inside a transaction. */
export class MetadataTx extends MetadataQueries {
  async createWorkspace(row: { id: string; name: string; created_at: number }): Promise<void> {
    await this.db
      .insertInto('workspaces')
      .values({ ...row, fence: await this.fenceFloor() })
      .execute();
  }

  /**
   * Lowest fencing token a new workspace may start from: the highest token any deleted workspace
   * handed out, so a lock holder from before a delete and re-create can never match a new lock.
   */
  async fenceFloor(): Promise<number> {
    const row = await this.db
      .selectFrom('meta')
      .select('value')
      .where('key', '=', FENCE_FLOOR)
      .executeTakeFirst();
    return row ? Number(row.value) : 0;
  }

  async deleteWorkspace(workspaceId: string): Promise<void> {
    const ws = await this.db
      .selectFrom('workspaces')
      .select('fence')
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    const floor = Math.max(await this.fenceFloor(), Number(ws?.fence ?? 0));
    await this.db
      .insertInto('meta')
      .values({ key: FENCE_FLOOR, value: String(floor) })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(floor) }))
      .execute();
    // Children first: not every dialect cascades the same way, and it keeps the order explicit.
    for (const table of ['entries', 'versions', 'locks', 'members', 'transfers'] as const) {
      await this.db.deleteFrom(table).where('workspace_id', '=', workspaceId).execute();
    }
    await this.db.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
  }

  /**
   * Looks up a workspace by name and hands out its next seq in one statement (the hot path of
   * every write); undefined if there is no such workspace. The seq is only used if the
   * transaction commits.
   */
  async claimSeq(name: string): Promise<WorkspaceRow | undefined> {
    const row = await this.db
      .updateTable('workspaces')
      .set((eb) => ({ seq: eb('seq', '+', 1) }))
      .where('name', '=', name)
      .returningAll()
      .executeTakeFirst();
    return row;
  }

  /** Hands out the workspace's next seq; it is only used if the transaction commits. */
  async nextSeq(workspaceId: string): Promise<number> {
    const row = await this.db
      .updateTable('workspaces')
      .set((eb) => ({ seq: eb('seq', '+', 1) }))
      .where('id', '=', workspaceId)
      .returning('seq')
      .executeTakeFirstOrThrow();
    return Number(row.seq);
  }

  /** Registers content; a hash that is already registered is left as it is. */
  async putBlob(row: BlobRow): Promise<void> {
    await this.db
      .insertInto('blobs')
      .values(row)
      .onConflict((oc) => oc.column('hash').doNothing())
      .execute();
  }

  async deleteBlob(hash: string): Promise<void> {
    await this.db.deleteFrom('blobs').where('hash', '=', hash).execute();
  }

  async insertVersion(row: VersionRow): Promise<void> {
    await this.db.insertInto('versions').values(row).execute();
  }

  async putEntry(row: EntryRow): Promise<void> {
    const { workspace_id: _workspace, path: _path, ...rest } = row;
    await this.db
      .insertInto('entries')
      .values(row)
      .onConflict((oc) => oc.columns(['workspace_id', 'path']).doUpdateSet(rest))
      .execute();
  }

  async deleteEntry(workspaceId: string, path: string): Promise<void> {
    await this.db
      .deleteFrom('entries')
      .where('workspace_id', '=', workspaceId)
      .where('path', '=', path)
      .execute();
  }
}

/** The store: reads, transactions, and batches of independent operations in one commit. */
export class MetadataStore extends MetadataQueries {
  constructor(
    db: Kysely<Database>,
    readonly dialect: SqlDialectInfo,
  ) {
    super(db);
  }

  /** Creates or upgrades the schema and records the storage format (docs/storage.md). */
  async migrate(): Promise<void> {
    await migrateToLatest(this.db as unknown as Kysely<unknown>, this.dialect);
    await this.db
      .insertInto('meta')
      .values({ key: 'format', value: STORAGE_FORMAT })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  }

  /** Runs `fn` in one transaction: all of its writes commit, durably, or none do. */
  transaction<T>(fn: (tx: MetadataTx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => fn(new MetadataTx(trx)));
  }

  /**
   * Runs independent operations in one transaction and one commit (group commit). Each runs in
   * its own savepoint, so one that throws rolls back only its own writes and reports its error;
   * the others commit. If the commit itself fails, every operation fails with that error.
   * With `durable: false` the commit survives a process crash but not a power loss.
   */
  async batch<T>(
    ops: ReadonlyArray<(tx: MetadataTx) => Promise<T>>,
    options: { durable?: boolean } = {},
  ): Promise<Settled<T>[]> {
    if (options.durable === false) {
      return this.dialect.relaxed(this.db, (db) => new MetadataStore(db, this.dialect).batch(ops));
    }
    const [only] = ops;
    if (ops.length === 1 && only) {
      // Alone in its transaction, an operation needs no savepoint: its failure rolls back all.
      try {
        const value = await this.db.transaction().execute((trx) => only(new MetadataTx(trx)));
        return [{ ok: true, value }];
      } catch (error) {
        return [{ ok: false, error }];
      }
    }
    return this.db.transaction().execute(async (trx: Transaction<Database>) => {
      const tx = new MetadataTx(trx);
      const results: Settled<T>[] = [];
      for (const op of ops) {
        await sql`savepoint op`.execute(trx);
        try {
          const value = await op(tx);
          await sql`release savepoint op`.execute(trx);
          results.push({ ok: true, value });
        } catch (error) {
          await sql`rollback to savepoint op`.execute(trx);
          await sql`release savepoint op`.execute(trx);
          results.push({ ok: false, error });
        }
      }
      return results;
    });
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}
