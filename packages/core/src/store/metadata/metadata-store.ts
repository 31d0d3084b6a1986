/**
 * MetadataStore: every metadata query Satchel makes, written once in Kysely so that it runs on
 * each dialect (SQLite now, PostgreSQL next). Reads run on the store; writes run on the
 * `MetadataTx` handed to `transaction` or `batch`, so they commit together or not at all.
 *
 * Shape. The core of the file tree (workspaces, entries, versions, blobs) is methods of the
 * store and the transaction themselves (`store.getEntry`, `tx.putEntry`). Every other area is
 * an object per query module, built in `MetadataQueries` over the same Kysely handle — the
 * store's own, or the transaction's — so an area call inside `transaction` is part of that
 * transaction: `store.locks.live(wsId, now)`, `tx.webhooks.enqueue(delivery)`,
 * `store.access.keyChain(id)`, `tx.members.put(member)`, `tx.audit.insert(entries)`,
 * `store.search.match(query)`, `tx.transfers.close(id, …)`. The file tree and the areas alike
 * take and return the camelCase records of records.ts; the snake_case columns of tables.ts, and
 * the mapping between them (file-tree-rows.ts, the area modules), never leave store/. Kysely itself never leaves store/ either: there is no getter for it, and
 * tests that must tamper with rows use `rawDatabase` from testing.ts.
 */
import type { Role } from '@satchel/client/schemas/access.js';
import type { Kysely } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import { startLockEpoch } from './lock-queries.js';
import { MetadataQueries } from './metadata-queries.js';
import { MetadataTx } from './metadata-tx.js';
import { migrateToLatest, pendingMigrations } from './migrations.js';
import type { WorkspaceRecord } from './records.js';
import type { Database } from './tables.js';

export { MetadataQueries } from './metadata-queries.js';
export { MetadataTx } from './metadata-tx.js';
export type {
  BlobRecord,
  CommentRecord,
  EntryRecord,
  ShareLinkRecord,
  VersionOrigin,
  VersionRecord,
  WorkspaceRecord,
} from './records.js';

/** Version of the on-disk format described in docs/storage.md. */
export const STORAGE_FORMAT = '1';

/** Outcome of one operation of a batch: its value, or the error that rolled back its changes. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

type EntryWithBlob = Awaited<ReturnType<MetadataQueries['getEntryWithBlob']>>;

/**
 * What one call has read already (`forCall`): workspaces by name, and the entry its
 * authorisation looked up for a read of one file, until the read takes it.
 */
export class CallRows {
  readonly #rows = new Map<string, Promise<WorkspaceRecord | undefined>>();
  #entry: { workspaceId: string; path: string; found: EntryWithBlob } | undefined;

  /** The workspace `name`, read with `read` the first time only. */
  get(
    name: string,
    read: () => Promise<WorkspaceRecord | undefined>,
  ): Promise<WorkspaceRecord | undefined> {
    let row = this.#rows.get(name);
    if (!row) {
      row = read();
      this.#rows.set(name, row);
    }
    return row;
  }

  /** Remembers `row` as the workspace `name` unless this call has read it already. */
  seed(name: string, row: Promise<WorkspaceRecord | undefined>): void {
    if (!this.#rows.has(name)) this.#rows.set(name, row);
  }

  /** The row of `name` if this call has read it already (never reads). */
  peek(name: string): Promise<WorkspaceRecord | undefined> | undefined {
    return this.#rows.get(name);
  }

  /** Keeps the entry (with its blob; undefined: none) found at `path` for the call's read. */
  keepEntry(workspaceId: string, path: string, found: EntryWithBlob): void {
    this.#entry = { workspaceId, path, found };
  }

  /** The kept entry of `path`, once: `{ found }`, or undefined when none was kept for it. */
  takeEntry(workspaceId: string, path: string): { found: EntryWithBlob } | undefined {
    const kept = this.#entry;
    this.#entry = undefined;
    return kept?.workspaceId === workspaceId && kept.path === path ? kept : undefined;
  }
}

/** The store: reads, transactions, and batches of independent operations in one commit. */
export class MetadataStore extends MetadataQueries {
  readonly #call: CallRows | null;

  constructor(
    db: Kysely<Database>,
    dialect: SqlDialectInfo,
    call: CallRows | null = null,
    parent?: MetadataStore,
  ) {
    super(db, dialect, parent);
    this.#call = call;
  }

  /**
   * This store as one call sees it: a workspace is read once per call — not once for the
   * authorisation and again by the operation. Transactions still read their own rows.
   */
  forCall(): MetadataStore {
    return new MetadataStore(this.db, this.dialect, new CallRows(), this);
  }

  override findWorkspace(name: string): Promise<WorkspaceRecord | undefined> {
    const read = () => super.findWorkspace(name);
    return this.#call ? this.#call.get(name, read) : read();
  }

  override async findWorkspaceWithRole(
    name: string,
    principalId: string,
  ): Promise<{ workspace: WorkspaceRecord; role: Role | null } | undefined> {
    const found = await super.findWorkspaceWithRole(name, principalId);
    this.#call?.seed(name, Promise.resolve(found?.workspace));
    return found;
  }

  /**
   * With the authorisation's lookup, the entry a read of one file needs (`forCall`): the call's
   * first `getEntryWithBlob` of that path takes it instead of asking again.
   */
  override async findWorkspaceWithRoleAndEntry(
    name: string,
    principalId: string,
    path: string,
  ): ReturnType<MetadataQueries['findWorkspaceWithRoleAndEntry']> {
    const found = await super.findWorkspaceWithRoleAndEntry(name, principalId, path);
    this.#call?.seed(name, Promise.resolve(found?.workspace));
    if (found) this.#call?.keepEntry(found.workspace.id, path, found.entry);
    return found;
  }

  override getEntryWithBlob(
    workspaceId: string,
    path: string,
  ): ReturnType<MetadataQueries['getEntryWithBlob']> {
    const kept = this.#call?.takeEntry(workspaceId, path);
    return kept ? Promise.resolve(kept.found) : super.getEntryWithBlob(workspaceId, path);
  }

  /** The row of `name` as this call already read it (`forCall`), or undefined if it has not. */
  workspaceReadByCall(name: string): Promise<WorkspaceRecord | undefined> | undefined {
    return this.#call?.peek(name);
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

  /**
   * The setting `key` of the database (its `meta` table): the stored value, or — when there is
   * none yet — `initial`, stored now. Whoever stores first wins; everyone gets the same value.
   */
  async setting(key: string, initial: string): Promise<string> {
    await this.db
      .insertInto('meta')
      .values({ key, value: initial })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('meta')
      .select('value')
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    return row.value;
  }

  /** Migrations not run yet on this database (a node started by an older version may see some). */
  pendingMigrations(): Promise<string[]> {
    return pendingMigrations(this.db as unknown as Kysely<unknown>, this.dialect);
  }

  /** Starts this engine's lock epoch (the fencing floor seam: lock-queries.ts, startLockEpoch). */
  startLockEpoch(): Promise<number> {
    return startLockEpoch(this.db);
  }

  /** Runs `fn` in one transaction: all of its writes commit, durably, or none do. */
  transaction<T>(fn: (tx: MetadataTx) => Promise<T>): Promise<T> {
    return this.dialect.writeTransaction(this.db, (trx) => fn(new MetadataTx(trx, this.dialect)));
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
        const value = await this.dialect.writeTransaction(this.db, (trx) =>
          only(new MetadataTx(trx, this.dialect)),
        );
        return [{ ok: true, value }];
      } catch (error) {
        return [{ ok: false, error }];
      }
    }
    return this.dialect.writeTransaction(this.db, async (trx) => {
      const tx = new MetadataTx(trx, this.dialect);
      const results: Settled<T>[] = [];
      // What ends the previous operation's savepoint, sent with the next one's start.
      let end: string[] = [];
      for (const op of ops) {
        await this.dialect.script(trx, [...end, 'savepoint op']);
        try {
          const value = await op(tx);
          await tx.settle();
          results.push({ ok: true, value });
          end = ['release savepoint op'];
        } catch (error) {
          await tx.settle({ discard: true });
          results.push({ ok: false, error });
          end = ['rollback to savepoint op', 'release savepoint op'];
        }
      }
      // The commit releases a savepoint that is kept; a failed last operation's is undone first.
      if (end.length > 1) await this.dialect.script(trx, end);
      return results;
    });
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}
