/** SQL for resumable upload sessions, their parts, and used signed transfer URLs (portable Kysely). */
import type { Kysely, Selectable } from 'kysely';
import type { UploadPartRecord, UploadRecord } from './records.js';
import type { Database, UploadPartsTable, UploadSessionsTable } from './tables.js';

function toUpload(row: Selectable<UploadSessionsTable>): UploadRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    path: row.path,
    principalId: row.principal_id,
    keyId: row.key_id,
    size: Number(row.size),
    sha256: row.sha256,
    received: Number(row.received),
    options: row.options,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

function toPart(row: Selectable<UploadPartsTable>): UploadPartRecord {
  return {
    uploadId: row.upload_id,
    workspaceId: row.workspace_id,
    start: Number(row.start),
    size: Number(row.size),
    hash: row.hash,
    chunkSize: Number(row.chunk_size),
    chunks: row.chunks,
  };
}

/** The upload area of the metadata store (`store.uploads`, `tx.uploads`). */
export class UploadQueries {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(upload: UploadRecord): Promise<void> {
    await this.db
      .insertInto('upload_sessions')
      .values({
        id: upload.id,
        workspace_id: upload.workspaceId,
        path: upload.path,
        principal_id: upload.principalId,
        key_id: upload.keyId,
        size: upload.size,
        sha256: upload.sha256,
        received: upload.received,
        options: upload.options,
        created_at: upload.createdAt,
        expires_at: upload.expiresAt,
      })
      .execute();
  }

  /** The session `id` of `workspaceId`, expired or not. */
  async byId(workspaceId: string, id: string): Promise<UploadRecord | undefined> {
    const row = await this.db
      .selectFrom('upload_sessions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toUpload(row);
  }

  /** Live sessions of a principal in a workspace (optionally for one path), newest first. */
  async live(
    workspaceId: string,
    principalId: string,
    now: number,
    path?: string,
  ): Promise<UploadRecord[]> {
    let query = this.db
      .selectFrom('upload_sessions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('principal_id', '=', principalId)
      .where('expires_at', '>', now);
    if (path !== undefined) query = query.where('path', '=', path);
    const rows = await query.orderBy('created_at', 'desc').limit(1000).execute();
    return rows.map(toUpload);
  }

  /**
   * Records a part at `start` and moves the session to `start + size`, only if the session is
   * still at `start` (two writers at one offset: one wins). False when it was not.
   */
  async addPart(part: UploadPartRecord, expiresAt: number): Promise<boolean> {
    const moved = await this.db
      .updateTable('upload_sessions')
      .set({ received: part.start + part.size, expires_at: expiresAt })
      .where('id', '=', part.uploadId)
      .where('received', '=', part.start)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    await this.db
      .insertInto('upload_parts')
      .values({
        upload_id: part.uploadId,
        workspace_id: part.workspaceId,
        start: part.start,
        size: part.size,
        hash: part.hash,
        chunk_size: part.chunkSize,
        chunks: part.chunks,
      })
      .execute();
    return true;
  }

  /** The parts of an upload in file order. */
  async parts(uploadId: string): Promise<UploadPartRecord[]> {
    const rows = await this.db
      .selectFrom('upload_parts')
      .selectAll()
      .where('upload_id', '=', uploadId)
      .orderBy('start')
      .execute();
    return rows.map(toPart);
  }

  /** Removes a session and its part rows (their content becomes garbage unless referenced). */
  async delete(uploadId: string): Promise<boolean> {
    await this.db.deleteFrom('upload_parts').where('upload_id', '=', uploadId).execute();
    const gone = await this.db
      .deleteFrom('upload_sessions')
      .where('id', '=', uploadId)
      .executeTakeFirst();
    return Number(gone.numDeletedRows) === 1;
  }

  /** Removes up to `limit` sessions expired at `now`; how many. */
  async deleteExpired(now: number, limit = 100): Promise<number> {
    const rows = await this.db
      .selectFrom('upload_sessions')
      .select('id')
      .where('expires_at', '<=', now)
      .limit(limit)
      .execute();
    for (const { id } of rows) await this.delete(id);
    return rows.length;
  }

  /** Every hash a part of a live or expired-but-not-removed session holds (for GC: live content). */
  async partHashes(): Promise<string[]> {
    const rows = await this.db.selectFrom('upload_parts').select('hash').distinct().execute();
    return rows.map((r) => r.hash);
  }

  /**
   * Marks a single-use signed URL used; false when it already was. Forgets tokens expired at
   * `now` on the way (they are refused by their expiry anyway).
   */
  async useToken(id: string, expiresAt: number, now: number): Promise<boolean> {
    await this.db.deleteFrom('used_transfer_tokens').where('expires_at', '<=', now).execute();
    const inserted = await this.db
      .insertInto('used_transfer_tokens')
      .values({ id, expires_at: expiresAt })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  /** Makes a single-use URL usable again (its transfer failed before anything was written). */
  async releaseToken(id: string): Promise<void> {
    await this.db.deleteFrom('used_transfer_tokens').where('id', '=', id).execute();
  }
}
