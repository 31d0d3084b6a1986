/**
 * SQL for forks (portable Kysely; engine/fork.ts, docs/time-travel.md "Fork and merge"): copying
 * a workspace's state at a seq into a new workspace as rows only — the content is shared by hash,
 * so garbage collection, which counts references in `versions` and `entries`, keeps it alive for
 * either side — and the record of where a fork came from.
 */
import { type Kysely, type Selectable, sql } from 'kysely';
import type { ForkRecord } from './records.js';
import type { Database, ForksTable } from './tables.js';
import { VERSION_COLUMNS } from './write-queries.js';

function toFork(row: Selectable<ForksTable>): ForkRecord {
  return {
    workspaceId: row.workspace_id,
    sourceId: row.source_id,
    sourceName: row.source_name,
    seq: Number(row.seq),
    baseSourceSeq: Number(row.base_source_seq),
    baseForkSeq: Number(row.base_fork_seq),
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
  };
}

/**
 * The parent directory of `path`, in SQL both dialects run: strip the last segment's characters
 * (`rtrim` with the set of every non-slash character of the path stops at the last "/"), then
 * that slash; the top level's parent is "/".
 */
const PARENT = sql<string>`coalesce(nullif(rtrim(rtrim(path, replace(path, '/', '')), '/'), ''), '/')`;

/** Where a fork began: the part of its record that never changes after the fork is made. */
export interface ForkPoint {
  readonly seq: number;
  readonly sourceName: string;
}

/** Fork points remembered per instance, at most this many (then forgotten all at once). */
const MAX_REMEMBERED = 10_000;

/** Forks: their origin, and the rows that make one (`store.forks`, `tx.forks`). */
export class ForkQueries {
  /**
   * The fork point of each workspace asked about (null: not a fork). Safe to keep, on every
   * node: a workspace's fork record is written in the transaction that creates it and its seq
   * and source name never change; a workspace id is never reused.
   */
  readonly #points = new Map<string, ForkPoint | null>();

  constructor(private readonly db: Kysely<Database>) {}

  /** Where `workspaceId` was forked (null: it is not a fork); every read `at` a past seq asks. */
  async forkPoint(workspaceId: string): Promise<ForkPoint | null> {
    const known = this.#points.get(workspaceId);
    if (known !== undefined) return known;
    const fork = await this.get(workspaceId);
    const point = fork === undefined ? null : { seq: fork.seq, sourceName: fork.sourceName };
    if (this.#points.size >= MAX_REMEMBERED) this.#points.clear();
    this.#points.set(workspaceId, point);
    return point;
  }

  /**
   * In a write transaction: gives the empty workspace `forkId` every path that was live in
   * `sourceId` at `seq`, as the same version (seq, author, session, content hash, time) and as
   * its head entry — two INSERT … SELECT statements, no content copied. Returns the paths copied.
   */
  async copyState(sourceId: string, forkId: string, seq: number): Promise<number> {
    const live = this.db
      .selectFrom('versions as v')
      .where('v.workspace_id', '=', sourceId)
      .where('v.deleted', '=', 0)
      .where('v.seq', '=', (eb) =>
        eb
          .selectFrom('versions as w')
          .select((e) => e.fn.max('w.seq').as('seq'))
          .whereRef('w.workspace_id', '=', 'v.workspace_id')
          .whereRef('w.path', '=', 'v.path')
          .where('w.seq', '<=', seq),
      )
      .select([
        sql<string>`cast(${forkId} as text)`.as('workspace_id'),
        ...VERSION_COLUMNS.map((c) => `v.${c}` as const),
      ]);
    const copied = await this.db
      .insertInto('versions')
      .columns(['workspace_id', ...VERSION_COLUMNS])
      .expression(live)
      .executeTakeFirst();
    await this.db
      .insertInto('entries')
      .columns([
        'workspace_id',
        'path',
        'parent',
        'type',
        'seq',
        'size',
        'hash',
        'content_type',
        'author',
        'session',
        'modified_at',
      ])
      .expression(
        this.db
          .selectFrom('versions')
          .where('workspace_id', '=', forkId)
          .select([
            'workspace_id',
            'path',
            PARENT.as('parent'),
            'type',
            'seq',
            'size',
            'hash',
            'content_type',
            'author',
            'session',
            'created_at',
          ]),
      )
      .execute();
    return Number(copied.numInsertedOrUpdatedRows ?? 0);
  }

  /** Makes a new workspace's next seq follow `seq`: a fork's seqs continue from its fork point. */
  async startAt(workspaceId: string, seq: number): Promise<void> {
    await this.db.updateTable('workspaces').set({ seq }).where('id', '=', workspaceId).execute();
  }

  async put(fork: ForkRecord): Promise<void> {
    await this.db
      .insertInto('forks')
      .values({
        workspace_id: fork.workspaceId,
        source_id: fork.sourceId,
        source_name: fork.sourceName,
        seq: fork.seq,
        base_source_seq: fork.baseSourceSeq,
        base_fork_seq: fork.baseForkSeq,
        created_by: fork.createdBy,
        created_at: fork.createdAt,
      })
      .execute();
  }

  /** Where the workspace `workspaceId` was forked from; undefined: it is not a fork. */
  async get(workspaceId: string): Promise<ForkRecord | undefined> {
    const row = await this.db
      .selectFrom('forks')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    return row && toFork(row);
  }

  /** After a merge back: the state both sides now share, as each side's seq. */
  async rebase(workspaceId: string, baseSourceSeq: number, baseForkSeq: number): Promise<void> {
    await this.db
      .updateTable('forks')
      .set({ base_source_seq: baseSourceSeq, base_fork_seq: baseForkSeq })
      .where('workspace_id', '=', workspaceId)
      .execute();
  }
}
