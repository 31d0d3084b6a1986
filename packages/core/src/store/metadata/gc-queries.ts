/**
 * SQL for garbage collection of content (portable Kysely; the protocol is engine/gc.ts and
 * docs/storage.md "Garbage collection"). Every deciding method runs inside a write transaction,
 * where writers are serialised (SQLite: one writer; PostgreSQL: `writeTransaction`'s advisory lock),
 * so its checks and its change see the same committed state as the writers' own checks.
 */
import type { Kysely } from 'kysely';
import type { Database } from './tables.js';

/** A registry row garbage collection may remove: no version refers to its content. */
export interface UnreferencedBlob {
  readonly hash: string;
  readonly size: number;
  readonly location: 'inline' | 'store';
  readonly createdAt: number;
}

/** What became of a blob-store file without a registry row (`considerOrphan`). */
export type OrphanVerdict =
  /** It has a registry row now (a write committed): keep it. */
  | 'registered'
  /** Seen without a row for less than the grace period: keep it for now. */
  | 'grace'
  /** Marked `deleting`: the caller deletes the bytes, then `finishDeleting`. */
  | 'delete';

/** The garbage-collection area of the metadata store (`store.gc`, `tx.gc`). */
export class GcQueries {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Registry rows no version refers to, registered at or before `cutoff`, in hash order after
   * `afterHash`. A candidate list only: `collectRow` decides, in its transaction.
   */
  async unreferenced(
    cutoff: number,
    afterHash: string | null,
    limit: number,
  ): Promise<UnreferencedBlob[]> {
    let q = this.db
      .selectFrom('blobs')
      .select(['hash', 'size', 'location', 'created_at'])
      .where('created_at', '<=', cutoff)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(selectFrom('versions').select('seq').whereRef('versions.hash', '=', 'blobs.hash')),
        ),
      )
      .orderBy('hash')
      .limit(limit);
    if (afterHash !== null) q = q.where('hash', '>', afterHash);
    return (await q.execute()).map((row) => ({
      hash: row.hash,
      size: Number(row.size),
      location: row.location,
      createdAt: Number(row.created_at),
    }));
  }

  /**
   * In a write transaction: removes the registry row of `hash` if it is still registered at or
   * before `cutoff` and no version or entry refers to it; content in the blob store is marked
   * `deleting` in the same statement's transaction (writers then refuse to count it as stored).
   * Returns the removed row, or undefined when it was kept.
   */
  async collectRow(
    hash: string,
    cutoff: number,
    now: number,
  ): Promise<Pick<UnreferencedBlob, 'size' | 'location'> | undefined> {
    const row = await this.db
      .deleteFrom('blobs')
      .where('hash', '=', hash)
      .where('created_at', '<=', cutoff)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('versions').select('seq').where('versions.hash', '=', hash))),
      )
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('entries').select('seq').where('entries.hash', '=', hash))),
      )
      .returning(['size', 'location'])
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.location === 'store') await this.#markDeleting(hash, now);
    return { size: Number(row.size), location: row.location };
  }

  /**
   * In a write transaction: decides about a blob-store file that had no registry row when it
   * was listed. It is deleted once it has been seen without a row since at or before `cutoff`
   * (the first sighting is recorded now); a row registered meanwhile (or an upload part naming
   * it) keeps it.
   */
  async considerOrphan(hash: string, cutoff: number, now: number): Promise<OrphanVerdict> {
    if ((await this.registered([hash])).size > 0) {
      await this.db
        .deleteFrom('gc_blobs')
        .where('hash', '=', hash)
        .where('state', '=', 'seen')
        .execute();
      return 'registered';
    }
    const mark = await this.db
      .selectFrom('gc_blobs')
      .select(['state', 'since'])
      .where('hash', '=', hash)
      .executeTakeFirst();
    if (mark?.state === 'deleting') return 'delete';
    const since = mark ? Number(mark.since) : now;
    if (since > cutoff) {
      await this.db
        .insertInto('gc_blobs')
        .values({ hash, state: 'seen', since, checked_at: now })
        .onConflict((oc) => oc.column('hash').doUpdateSet({ checked_at: now }))
        .execute();
      return 'grace';
    }
    await this.#markDeleting(hash, now);
    return 'delete';
  }

  /**
   * Which of `hashes` are live without being garbage candidates: a registry row names them (a
   * version's content), or a part of a resumable upload under way does (upload-queries.ts).
   */
  async registered(hashes: readonly string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('blobs')
      .select('hash')
      .where('hash', 'in', hashes)
      .union(this.db.selectFrom('upload_parts').select('hash').where('hash', 'in', hashes))
      .execute();
    return new Set(rows.map((row) => row.hash));
  }

  /** When each of `hashes` was first seen without a registry row (dry runs). */
  async seenSince(hashes: readonly string[]): Promise<Map<string, number>> {
    if (hashes.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('gc_blobs')
      .select(['hash', 'since'])
      .where('hash', 'in', hashes)
      .execute();
    return new Map(rows.map((row) => [row.hash, Number(row.since)]));
  }

  /** Whether garbage collection has removed the row of `hash` and may be deleting its bytes. */
  async isDeleting(hash: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('gc_blobs')
      .select('hash')
      .where('hash', '=', hash)
      .where('state', '=', 'deleting')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Content marked `deleting` (by this run, or by one that stopped before it finished). */
  async deleting(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('gc_blobs')
      .select('hash')
      .where('state', '=', 'deleting')
      .orderBy('hash')
      .limit(limit)
      .execute();
    return rows.map((row) => row.hash);
  }

  /** After the bytes of `hashes` are gone from the blob store: writers may store them again. */
  async finishDeleting(hashes: readonly string[]): Promise<void> {
    if (hashes.length === 0) return;
    await this.db
      .deleteFrom('gc_blobs')
      .where('hash', 'in', hashes)
      .where('state', '=', 'deleting')
      .execute();
  }

  /** Forgets sightings not confirmed since `before` (the file is gone or was registered). */
  async forgetSeen(before: number): Promise<void> {
    await this.db
      .deleteFrom('gc_blobs')
      .where('state', '=', 'seen')
      .where('checked_at', '<', before)
      .execute();
  }

  async #markDeleting(hash: string, now: number): Promise<void> {
    await this.db
      .insertInto('gc_blobs')
      .values({ hash, state: 'deleting', since: now, checked_at: now })
      .onConflict((oc) =>
        oc.column('hash').doUpdateSet({ state: 'deleting', since: now, checked_at: now }),
      )
      .execute();
  }

  /**
   * Takes or renews the lease `name` for `holder` until `expiresAt`: true when `holder` has it
   * now (it was free, expired, or already its own), false while another holder's is live.
   */
  async acquireLease(
    name: string,
    holder: string,
    now: number,
    expiresAt: number,
  ): Promise<boolean> {
    const row = await this.db
      .insertInto('leases')
      .values({ name, holder, expires_at: expiresAt })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ holder, expires_at: expiresAt })
          .where((eb) =>
            eb.or([eb('leases.expires_at', '<=', now), eb('leases.holder', '=', holder)]),
          ),
      )
      .returning('holder')
      .executeTakeFirst();
    return row?.holder === holder;
  }

  /** Gives the lease back if `holder` still has it. */
  async releaseLease(name: string, holder: string): Promise<void> {
    await this.db
      .deleteFrom('leases')
      .where('name', '=', name)
      .where('holder', '=', holder)
      .execute();
  }
}
