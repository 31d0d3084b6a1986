/**
 * MetadataTx: the writes of the metadata store, only ever handed out inside a transaction
 * (`MetadataStore.transaction`, `batch`); see metadata-store.ts for the store's shape.
 */
import { blobRow, entryRow, newWorkspaceRow, versionRow } from './file-tree-rows.js';
import { MetadataQueries } from './metadata-queries.js';
import type { BlobRecord, EntryRecord, VersionRecord, WorkspaceRecord } from './records.js';
import {
  type ClaimHints,
  claimSeqs,
  INSERT_VERSION,
  insertChunked,
  PUT_BLOB,
  PUT_ENTRY,
} from './write-queries.js';

const FENCE_FLOOR = 'fence_floor';

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
