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
import { blobRow, entryRow, newWorkspaceRow, versionRow } from './file-tree-rows.js';
import { startLockEpoch } from './lock-queries.js';
import { MetadataQueries } from './metadata-queries.js';
import { migrateToLatest, pendingMigrations } from './migrations.js';
import type { BlobRecord, EntryRecord, VersionRecord, WorkspaceRecord } from './records.js';
import type { Database } from './tables.js';
import {
  type ClaimHints,
  claimSeqs,
  INSERT_VERSION,
  insertChunked,
  PUT_BLOB,
  PUT_ENTRY,
} from './write-queries.js';

export { MetadataQueries } from './metadata-queries.js';
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

const FENCE_FLOOR = 'fence_floor';

/** Outcome of one operation of a batch: its value, or the error that rolled back its changes. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Writes; only ever handed out inside a transaction. */
export class MetadataTx extends MetadataQueries {
  #lockHint: { workspaceId: string; expiry: number | null } | undefined;
  #auditHint: { head: ClaimHints['auditHead'] } | undefined;

  async createWorkspace(ws: Pick<WorkspaceRecord, 'id' | 'name' | 'createdAt'>): Promise<void> {
    await this.db
      .insertInto('workspaces')
      .values({ ...newWorkspaceRow(ws), fence: await this.fenceFloor() })
      .execute();
    await this.usage.start(ws.id);
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
    for (const table of [
      'webhook_attempts',
      'webhook_deliveries',
      'webhooks',
      'entries',
      'versions',
      'locks',
      'members',
      'invitations',
      'transfers',
      'upload_parts',
      'upload_sessions',
      'snapshots',
      'comments',
      'share_links',
      'forks',
      // Last: deleting the rows above updates it through its triggers.
      'workspace_usage',
    ] as const) {
      await this.db.deleteFrom(table).where('workspace_id', '=', workspaceId).execute();
    }
    await this.db.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
  }

  /**
   * Looks up a workspace by name and hands out its next seq in one statement (the hot path of
   * every write); undefined if there is no such workspace. The seq is only used if the
   * transaction commits.
   */
  claimSeq(name: string): Promise<WorkspaceRecord | undefined> {
    return this.claimSeqs(name, 1);
  }

  /**
   * Hands out the next `count` seqs of workspace `name` at once (a group of writes); the row's
   * seq is the last of them. 0 claims none but locks the row (`claimSeqs`). The same statement
   * answers what the write asks next (`anyLiveLock`, `auditHead`).
   */
  async claimSeqs(name: string, count: number): Promise<WorkspaceRecord | undefined> {
    const claimed = await claimSeqs(this.db, this.dialect, name, count);
    this.#lockHint = claimed && {
      workspaceId: claimed.hints.workspaceId,
      expiry: claimed.hints.lockExpiry,
    };
    this.#auditHint = claimed && { head: claimed.hints.auditHead };
    return claimed?.workspace;
  }

  /**
   * Whether the workspace holds any live lock at `now`: one cheap statement, or none right after
   * this transaction's claim of a seq in it (the claim read it; each hint answers once).
   */
  async anyLiveLock(workspaceId: string, now: number): Promise<boolean> {
    const hint = this.#lockHint;
    this.#lockHint = undefined;
    if (hint?.workspaceId === workspaceId) return hint.expiry !== null && hint.expiry > now;
    return this.locks.anyLive(workspaceId, now);
  }

  /** The audit log's head as this transaction sees it (from its claim of a seq, if just made). */
  async auditHead(): Promise<{ idx: number; hash: string } | undefined> {
    const hint = this.#auditHint;
    this.#auditHint = undefined;
    if (hint) return hint.head ?? undefined;
    return this.audit.head();
  }

  /**
   * Ends one operation of the transaction: forgets the claim's hints and sends what the dialect
   * held back, so an error of it is this operation's (`MetadataStore.batch`); with `discard`
   * (the operation failed and is rolled back), drops it instead.
   */
  async settle(options?: { discard: boolean }): Promise<void> {
    this.#lockHint = undefined;
    this.#auditHint = undefined;
    await this.dialect.settle?.(this.db, options);
  }

  /** Registers many contents in multi-row statements; hashes already registered are left. */
  async putBlobs(blobs: readonly BlobRecord[]): Promise<void> {
    await insertChunked(PUT_BLOB, this.db, this.dialect, blobs.map(blobRow));
  }

  /** Inserts many versions in multi-row statements. */
  async insertVersions(versions: readonly VersionRecord[]): Promise<void> {
    await insertChunked(INSERT_VERSION, this.db, this.dialect, versions.map(versionRow));
  }

  /** Writes many entries (distinct paths) in multi-row statements, replacing those there. */
  async putEntries(entries: readonly EntryRecord[]): Promise<void> {
    await insertChunked(PUT_ENTRY, this.db, this.dialect, entries.map(entryRow));
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
  async putBlob(blob: BlobRecord): Promise<void> {
    await PUT_BLOB(this.db, this.dialect, [blobRow(blob)]);
  }

  /** Replaces a workspace's settings (the JSON of `WorkspaceSettings` and any unknown keys kept). */
  async setWorkspaceSettings(workspaceId: string, settings: string): Promise<void> {
    await this.db
      .updateTable('workspaces')
      .set({ settings })
      .where('id', '=', workspaceId)
      .execute();
  }

  async deleteBlob(hash: string): Promise<void> {
    await this.db.deleteFrom('blobs').where('hash', '=', hash).execute();
  }

  async insertVersion(version: VersionRecord): Promise<void> {
    await INSERT_VERSION(this.db, this.dialect, [versionRow(version)]);
  }

  /** Writes the entry of a path, replacing the one there. */
  async putEntry(entry: EntryRecord): Promise<void> {
    await PUT_ENTRY(this.db, this.dialect, [entryRow(entry)]);
  }

  async deleteEntry(workspaceId: string, path: string): Promise<void> {
    await this.db
      .deleteFrom('entries')
      .where('workspace_id', '=', workspaceId)
      .where('path', '=', path)
      .execute();
  }
}

/** Workspaces already read, by name: a cache for the reads of one call (`forCall`). */
export class WorkspaceRows {
  readonly #rows = new Map<string, Promise<WorkspaceRecord | undefined>>();

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
}

/** The store: reads, transactions, and batches of independent operations in one commit. */
export class MetadataStore extends MetadataQueries {
  readonly #workspaces: WorkspaceRows | null;

  constructor(
    db: Kysely<Database>,
    dialect: SqlDialectInfo,
    workspaces: WorkspaceRows | null = null,
    parent?: MetadataStore,
  ) {
    super(db, dialect, parent);
    this.#workspaces = workspaces;
  }

  /**
   * This store as one call sees it: a workspace is read once per call — not once for the
   * authorisation and again by the operation. Transactions still read their own rows.
   */
  forCall(): MetadataStore {
    return new MetadataStore(this.db, this.dialect, new WorkspaceRows(), this);
  }

  override findWorkspace(name: string): Promise<WorkspaceRecord | undefined> {
    const read = () => super.findWorkspace(name);
    return this.#workspaces ? this.#workspaces.get(name, read) : read();
  }

  override async findWorkspaceWithRole(
    name: string,
    principalId: string,
  ): Promise<{ workspace: WorkspaceRecord; role: Role | null } | undefined> {
    const found = await super.findWorkspaceWithRole(name, principalId);
    this.#workspaces?.seed(name, Promise.resolve(found?.workspace));
    return found;
  }

  /** The row of `name` as this call already read it (`forCall`), or undefined if it has not. */
  workspaceReadByCall(name: string): Promise<WorkspaceRecord | undefined> | undefined {
    return this.#workspaces?.peek(name);
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
