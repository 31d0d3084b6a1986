/**
 * What each workspace stores (`workspace_usage`): counters kept by triggers on `entries` and
 * `versions`, so they stay exact whichever code path writes those rows — a write, a move, a
 * delete, a restore, an undo, a copy between databases — and inside the writing transaction, so
 * a quota check that reads them after a mutation sees every earlier commit and its own changes.
 */
import { type Kysely, sql } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import type { Database } from './tables.js';

/** The counters of one workspace. */
export interface UsageCounters {
  /** Sum of the sizes of the current files. */
  readonly currentBytes: number;
  /** Sum of the sizes of every version kept (current ones included; tombstones are 0). */
  readonly historyBytes: number;
  /** Current files (directories not counted). */
  readonly files: number;
}

const ZERO: UsageCounters = { currentBytes: 0, historyBytes: 0, files: 0 };

/** 1 when the trigger's `row` is a file, else 0 (SQL both dialects read). */
const FILE_ONE = (row: 'new' | 'old') => `(case when ${row}.type = 'file' then 1 else 0 end)`;

const SET_ENTRY_DELTA =
  `current_bytes = current_bytes + coalesce(new.size, 0) - coalesce(old.size, 0), ` +
  `files = files + ${FILE_ONE('new')} - ${FILE_ONE('old')}`;

/**
 * Statements that create the counting triggers on `dialect`. Entries count current bytes and
 * files (an upsert fires the insert or the update trigger, never both); versions count history.
 * Triggers that would add nothing (directories, tombstones, an unchanged size) do not fire.
 */
export function usageTriggers(dialect: SqlDialectInfo['name']): string[] {
  const entryChanged = `old.size <> new.size or old.type <> new.type`;
  if (dialect === 'sqlite') {
    // SQLite has no NEW in a delete trigger nor OLD in an insert trigger: one per event.
    const entries = (event: string, when: string, set: string, ws: 'new' | 'old') =>
      `create trigger entries_usage_${event} after ${event} on entries when ${when} begin ` +
      `update workspace_usage set ${set} where workspace_id = ${ws}.workspace_id; end`;
    const versions = (event: string, when: string, delta: string, ws: 'new' | 'old') =>
      `create trigger versions_usage_${event} after ${event} on versions when ${when} begin ` +
      `update workspace_usage set history_bytes = history_bytes + ${delta} ` +
      `where workspace_id = ${ws}.workspace_id; end`;
    return [
      entries(
        'insert',
        `new.type = 'file'`,
        `current_bytes = current_bytes + new.size, files = files + 1`,
        'new',
      ),
      entries(
        'update',
        entryChanged,
        `current_bytes = current_bytes + new.size - old.size, ` +
          `files = files + ${FILE_ONE('new')} - ${FILE_ONE('old')}`,
        'new',
      ),
      entries(
        'delete',
        `old.type = 'file'`,
        `current_bytes = current_bytes - old.size, files = files - 1`,
        'old',
      ),
      versions('insert', 'new.size <> 0', 'new.size', 'new'),
      versions('update', 'old.size <> new.size', 'new.size - old.size', 'new'),
      versions('delete', 'old.size <> 0', '- old.size', 'old'),
    ];
  }
  // PostgreSQL: NEW is null in a delete trigger and OLD in an insert trigger (PostgreSQL 11+).
  const fn = (name: string, set: string) =>
    `create or replace function ${name}() returns trigger language plpgsql as $$ begin ` +
    `update workspace_usage set ${set} ` +
    `where workspace_id = coalesce(new.workspace_id, old.workspace_id); return null; end $$`;
  const trigger = (table: string, event: string, when: string, name: string) =>
    `create trigger ${table}_usage_${event} after ${event} on ${table} for each row ` +
    `when (${when}) execute function ${name}()`;
  return [
    fn('satchel_entries_usage', SET_ENTRY_DELTA),
    fn(
      'satchel_versions_usage',
      'history_bytes = history_bytes + coalesce(new.size, 0) - coalesce(old.size, 0)',
    ),
    trigger('entries', 'insert', `new.type = 'file'`, 'satchel_entries_usage'),
    trigger('entries', 'update', entryChanged, 'satchel_entries_usage'),
    trigger('entries', 'delete', `old.type = 'file'`, 'satchel_entries_usage'),
    trigger('versions', 'insert', 'new.size <> 0', 'satchel_versions_usage'),
    trigger('versions', 'update', 'old.size <> new.size', 'satchel_versions_usage'),
    trigger('versions', 'delete', 'old.size <> 0', 'satchel_versions_usage'),
  ];
}

/**
 * Recounts the counters of every workspace from its rows (or only of `workspaceId`): what the
 * migration that introduced them runs, and a repair if they were ever doubted.
 */
export async function recountUsage(db: Kysely<Database>, workspaceId?: string): Promise<void> {
  const only = workspaceId === undefined ? sql`` : sql`where w.id = ${workspaceId}`;
  if (workspaceId === undefined) await db.deleteFrom('workspace_usage').execute();
  else await db.deleteFrom('workspace_usage').where('workspace_id', '=', workspaceId).execute();
  await sql`insert into workspace_usage (workspace_id, current_bytes, history_bytes, files)
    select w.id,
      coalesce((select sum(e.size) from entries e where e.workspace_id = w.id), 0),
      coalesce((select sum(v.size) from versions v where v.workspace_id = w.id), 0),
      (select count(*) from entries e where e.workspace_id = w.id and e.type = 'file')
    from workspaces w ${only}`.execute(db);
}

/** The usage area of the metadata store (`store.usage`, `tx.usage`). */
export class UsageQueries {
  constructor(private readonly db: Kysely<Database>) {}

  /** Starts the counters of a new, empty workspace. */
  async start(workspaceId: string): Promise<void> {
    await this.db
      .insertInto('workspace_usage')
      .values({ workspace_id: workspaceId, current_bytes: 0, history_bytes: 0, files: 0 })
      .execute();
  }

  /** The counters of a workspace; zero for one that has none (there is no such workspace). */
  async counters(workspaceId: string): Promise<UsageCounters> {
    const row = await this.db
      .selectFrom('workspace_usage')
      .select(['current_bytes', 'history_bytes', 'files'])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    if (!row) return ZERO;
    return {
      currentBytes: Number(row.current_bytes),
      historyBytes: Number(row.history_bytes),
      files: Number(row.files),
    };
  }

  /**
   * Bytes of the distinct content the workspace's versions refer to: what it occupies in the
   * content store, each blob once however many versions (or workspaces) share it. Computed, not
   * counted: it scans the workspace's versions.
   */
  async deduplicatedBytes(workspaceId: string): Promise<number> {
    const row = await this.db
      .selectFrom('blobs')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size'), eb.lit(0)).as('bytes'))
      .where(
        'hash',
        'in',
        this.db
          .selectFrom('versions')
          .select('hash')
          .where('workspace_id', '=', workspaceId)
          .where('hash', 'is not', null)
          .$narrowType<{ hash: string }>(),
      )
      .executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }
}
