/**
 * SQL for the workspace as it was, and for the snapshots that name its states (portable Kysely).
 * A path's state at seq S is its newest version with seq ≤ S: deletions and moves leave a
 * tombstone on every path they remove, so the versions table alone answers "as of" reads.
 */
import { descendantRange } from '@satchel/client/paths.js';
import type { Kysely, Selectable } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import { toVersion } from './file-tree-rows.js';
import { toVersionWithBlob, VERSION_AT_WITH_BLOB } from './hot-queries.js';
import type { BlobRecord, SnapshotRecord, VersionRecord } from './records.js';
import type { Database, SnapshotsTable } from './tables.js';

function toSnapshot(row: Selectable<SnapshotsTable>): SnapshotRecord {
  return {
    workspaceId: row.workspace_id,
    name: row.name,
    seq: Number(row.seq),
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    message: row.message,
  };
}

/** Whose versions an undo takes back: those of a session, of an author, or both (empty: all). */
export interface UndoSelector {
  readonly session?: string;
  readonly author?: string;
}

/** The past of a workspace: its state at a seq, and snapshots (`store.past`, `tx.past`). */
export class PastQueries {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialectInfo,
  ) {}

  /** The version of `path` that was current at `seq` (a tombstone if it was deleted then). */
  async version(
    workspaceId: string,
    path: string,
    seq: number,
  ): Promise<VersionRecord | undefined> {
    return (await this.versionWithBlob(workspaceId, path, seq))?.version;
  }

  /** That version and, for a file, its blob (undefined if the blob row is missing). */
  async versionWithBlob(
    workspaceId: string,
    path: string,
    seq: number,
  ): Promise<{ version: VersionRecord; blob: BlobRecord | undefined } | undefined> {
    const [row] = await VERSION_AT_WITH_BLOB(this.db, this.dialect, workspaceId, path, seq);
    return row && toVersionWithBlob(row);
  }

  /** Entries under `dir` (its children, or all descendants) that existed at `seq`, by path. */
  private existing(workspaceId: string, dir: string, seq: number, recursive: boolean) {
    const { lo, hi } = descendantRange(dir);
    let q = this.db
      .selectFrom('versions as v')
      .where('v.workspace_id', '=', workspaceId)
      .where('v.path', '>=', lo)
      .where('v.path', '<', hi)
      .where('v.deleted', '=', 0)
      .where('v.seq', '=', (eb) =>
        eb
          .selectFrom('versions as w')
          .select((e) => e.fn.max('w.seq').as('seq'))
          .whereRef('w.workspace_id', '=', 'v.workspace_id')
          .whereRef('w.path', '=', 'v.path')
          .where('w.seq', '<=', seq),
      );
    // A child's path has no "/" after the directory's own (paths never hold "\\", the only
    // character LIKE could read as an escape; a wildcard in `lo` still matches itself).
    if (!recursive) q = q.where('v.path', 'not like', `${lo}%/%`);
    return q;
  }

  async list(
    workspaceId: string,
    dir: string,
    seq: number,
    recursive: boolean,
    afterPath: string | null,
    limit: number,
  ): Promise<VersionRecord[]> {
    let q = this.existing(workspaceId, dir, seq, recursive)
      .selectAll('v')
      .orderBy('v.path')
      .limit(limit);
    if (afterPath !== null) q = q.where('v.path', '>', afterPath);
    return (await q.execute()).map(toVersion);
  }

  async count(workspaceId: string, dir: string, seq: number, recursive: boolean): Promise<number> {
    const row = await this.existing(workspaceId, dir, seq, recursive)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /**
   * Removes the content reference of file versions of `path` — `seq`, or every one — and of the
   * head's entry when it is one of them: the rows stay, their hash is null (redacted). Returns
   * the seqs redacted now, newest first (tombstones, directories and versions redacted before
   * are left alone).
   */
  async redact(workspaceId: string, path: string, seq: number | 'all'): Promise<number[]> {
    let versions = this.db
      .updateTable('versions')
      .set({ hash: null })
      .where('workspace_id', '=', workspaceId)
      .where('path', '=', path)
      .where('type', '=', 'file')
      .where('deleted', '=', 0)
      .where('hash', 'is not', null);
    if (seq !== 'all') versions = versions.where('seq', '=', seq);
    const seqs = (await versions.returning('seq').execute()).map((r) => Number(r.seq));
    if (seqs.length > 0) {
      await this.db
        .updateTable('entries')
        .set({ hash: null })
        .where('workspace_id', '=', workspaceId)
        .where('path', '=', path)
        .where('seq', 'in', seqs)
        .execute();
    }
    return seqs.sort((a, b) => b - a);
  }

  /**
   * The paths that versions after seq `after` (up to `upTo`) selected by `who` touched, each with
   * the first and last seq of those versions, in path order. `who` narrows by session and author;
   * empty, it selects every version.
   */
  async touched(
    workspaceId: string,
    after: number,
    upTo: number,
    who: UndoSelector,
  ): Promise<{ path: string; first: number; last: number }[]> {
    const rows = await this.selected(workspaceId, after, upTo, who)
      .select((eb) => ['path', eb.fn.min('seq').as('first'), eb.fn.max('seq').as('last')])
      .groupBy('path')
      .orderBy('path')
      .execute();
    return rows.map((r) => ({ path: r.path, first: Number(r.first), last: Number(r.last) }));
  }

  /**
   * For the paths `who` touched after `after`, the newest seq (up to `upTo`) of a version on the
   * same path that `who` does not select: someone else's change.
   */
  async othersLatest(
    workspaceId: string,
    after: number,
    upTo: number,
    who: UndoSelector,
  ): Promise<Map<string, number>> {
    let q = this.db
      .selectFrom('versions')
      .where('workspace_id', '=', workspaceId)
      .where('seq', '>', after)
      .where('seq', '<=', upTo)
      .where('path', 'in', this.selected(workspaceId, after, upTo, who).select('path'));
    // NOT (session = S AND author = P), where a NULL session is another session.
    q = q.where((eb) => {
      const outside = [];
      if (who.session !== undefined) {
        outside.push(eb('session', 'is', null), eb('session', '<>', who.session));
      }
      if (who.author !== undefined) outside.push(eb('author', '<>', who.author));
      return outside.length === 0 ? eb.lit(false) : eb.or(outside);
    });
    const rows = await q
      .select((eb) => ['path', eb.fn.max('seq').as('seq')])
      .groupBy('path')
      .execute();
    return new Map(rows.map((r) => [r.path, Number(r.seq)]));
  }

  private selected(workspaceId: string, after: number, upTo: number, who: UndoSelector) {
    let q = this.db
      .selectFrom('versions')
      .where('workspace_id', '=', workspaceId)
      .where('seq', '>', after)
      .where('seq', '<=', upTo);
    if (who.session !== undefined) q = q.where('session', '=', who.session);
    if (who.author !== undefined) q = q.where('author', '=', who.author);
    return q;
  }

  /** The seq just before the first version written at or after `time` (ms); null: none is. */
  async seqBefore(workspaceId: string, time: number): Promise<number | null> {
    const row = await this.db
      .selectFrom('versions')
      .select((eb) => eb.fn.min('seq').as('seq'))
      .where('workspace_id', '=', workspaceId)
      .where('created_at', '>=', time)
      .executeTakeFirst();
    return row?.seq === null || row?.seq === undefined ? null : Number(row.seq) - 1;
  }

  /** Names `seq`; false when the workspace already has a snapshot of that name. */
  async putSnapshot(snapshot: SnapshotRecord): Promise<boolean> {
    const result = await this.db
      .insertInto('snapshots')
      .values({
        workspace_id: snapshot.workspaceId,
        name: snapshot.name,
        seq: snapshot.seq,
        created_by: snapshot.createdBy,
        created_at: snapshot.createdAt,
        message: snapshot.message,
      })
      .onConflict((oc) => oc.columns(['workspace_id', 'name']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async snapshot(workspaceId: string, name: string): Promise<SnapshotRecord | undefined> {
    const row = await this.db
      .selectFrom('snapshots')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toSnapshot(row);
  }

  /** Snapshots newest seq first (then by name), after the `(seq, name)` of the last one seen. */
  async snapshots(
    workspaceId: string,
    after: { seq: number; name: string } | null,
    limit: number,
  ): Promise<SnapshotRecord[]> {
    let q = this.db
      .selectFrom('snapshots')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('seq', 'desc')
      .orderBy('name')
      .limit(limit);
    if (after !== null) {
      q = q.where((eb) =>
        eb.or([
          eb('seq', '<', after.seq),
          eb.and([eb('seq', '=', after.seq), eb('name', '>', after.name)]),
        ]),
      );
    }
    return (await q.execute()).map(toSnapshot);
  }

  /** Forgets a snapshot; false when there was none of that name. */
  async deleteSnapshot(workspaceId: string, name: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('snapshots')
      .where('workspace_id', '=', workspaceId)
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
