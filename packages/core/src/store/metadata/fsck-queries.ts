/** What fsck reads (engine/fsck.ts): the blob registry page by page, versions without a blob. */
import type { Kysely } from 'kysely';
import { toBlobMeta } from './file-tree-rows.js';
import type { BlobRecord, VersionRecord } from './records.js';
import type { Database } from './tables.js';

/** The fsck area of the metadata store (`store.fsck`). */
export class FsckQueries {
  constructor(private readonly db: Kysely<Database>) {}

  /** Registered blobs in hash order, without inline data (for fsck). */
  async listBlobs(afterHash: string | null, limit: number): Promise<Omit<BlobRecord, 'data'>[]> {
    let q = this.db
      .selectFrom('blobs')
      .select(['hash', 'size', 'location', 'chunk_size', 'chunks', 'created_at'])
      .orderBy('hash')
      .limit(limit);
    if (afterHash !== null) q = q.where('hash', '>', afterHash);
    return (await q.execute()).map(toBlobMeta);
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

  /** Versions that name a blob the registry lacks (the foreign key forbids it; fsck checks anyway). */
  async versionsWithoutBlob(
    limit: number,
  ): Promise<Pick<VersionRecord, 'workspaceId' | 'path' | 'seq' | 'hash'>[]> {
    const rows = await this.db
      .selectFrom('versions')
      .leftJoin('blobs', 'blobs.hash', 'versions.hash')
      .select(['versions.workspace_id', 'versions.path', 'versions.seq', 'versions.hash'])
      .where('versions.hash', 'is not', null)
      .where('blobs.hash', 'is', null)
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      workspaceId: row.workspace_id,
      path: row.path,
      seq: Number(row.seq),
      hash: row.hash,
    }));
  }

  async countVersions(): Promise<number> {
    const row = await this.db
      .selectFrom('versions')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }
}
