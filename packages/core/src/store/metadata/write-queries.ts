/**
 * The statements of every write, compiled once (prepared.ts): claim the seq, read the file and
 * its parent, register the blob, write the entry and the version.
 */

import { type Insertable, type Kysely, sql } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import { type EntryRow, toEntry, toWorkspace } from './file-tree-rows.js';
import { prepared, preparedInsert } from './prepared.js';
import type { EntryRecord, WorkspaceRecord } from './records.js';
import type { BlobsTable, Database, EntriesTable, VersionsTable } from './tables.js';

/** Two paths of a workspace (a file and its parent; the same path twice for one). */
const TWO_ENTRIES = prepared((db: Kysely<Database>, workspaceId: string, a: string, b: string) =>
  db
    .selectFrom('entries')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('path', 'in', [a, b]),
);

/** The entries at one or two paths, by path. */
export async function oneOrTwoEntries(
  db: Kysely<Database>,
  dialect: Parameters<typeof TWO_ENTRIES>[1],
  workspaceId: string,
  [a, b]: readonly [string, string?],
): Promise<Map<string, EntryRecord>> {
  const rows: EntryRow[] = await TWO_ENTRIES(db, dialect, workspaceId, a, b ?? a);
  return new Map(rows.map((row) => [row.path, toEntry(row)]));
}

const ENTRY_COLUMNS = [
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
] as const satisfies readonly (keyof EntriesTable)[];

/** Writes the entry of a path, replacing the one there. */
export const PUT_ENTRY = preparedInsert<'entries', Insertable<EntriesTable>>(
  'entries',
  ENTRY_COLUMNS,
  (insert) =>
    insert.onConflict((oc) =>
      oc.columns(['workspace_id', 'path']).doUpdateSet((eb) => ({
        parent: eb.ref('excluded.parent'),
        type: eb.ref('excluded.type'),
        seq: eb.ref('excluded.seq'),
        size: eb.ref('excluded.size'),
        hash: eb.ref('excluded.hash'),
        content_type: eb.ref('excluded.content_type'),
        author: eb.ref('excluded.author'),
        session: eb.ref('excluded.session'),
        modified_at: eb.ref('excluded.modified_at'),
      })),
    ),
  { deferrable: true },
);

/** A version's columns but its workspace: what a fork copies from another workspace's rows. */
export const VERSION_COLUMNS = [
  'path',
  'seq',
  'op',
  'type',
  'deleted',
  'hash',
  'size',
  'content_type',
  'author',
  'session',
  'message',
  'origin_path',
  'origin_seq',
  'created_at',
] as const satisfies readonly (keyof VersionsTable)[];

export const INSERT_VERSION = preparedInsert<'versions', Insertable<VersionsTable>>(
  'versions',
  ['workspace_id', ...VERSION_COLUMNS],
  undefined,
  { deferrable: true },
);

/** Registers content; a hash that is already registered is left as it is. */
export const PUT_BLOB = preparedInsert<'blobs', Insertable<BlobsTable>>(
  'blobs',
  ['hash', 'size', 'location', 'data', 'chunk_size', 'chunks', 'created_at'],
  (insert) => insert.onConflict((oc) => oc.column('hash').doNothing()),
  { deferrable: true },
);

const CLAIM_SEQS = prepared((db: Kysely<Database>, name: string, count: number) =>
  db
    .updateTable('workspaces')
    .set((eb) => ({ seq: eb('seq', '+', count) }))
    .where('name', '=', name)
    .returningAll()
    // What every write asks next, in the same round trip (ClaimHints).
    .returning((eb) => [
      eb
        .selectFrom('locks')
        .select((l) => l.fn.max('expires_at').as('expiry'))
        .whereRef('locks.workspace_id', '=', 'workspaces.id')
        .where('released_at', 'is', null)
        .as('lock_expiry'),
      eb.selectFrom('audit').select('idx').orderBy('idx', 'desc').limit(sql.lit(1)).as('audit_idx'),
      eb
        .selectFrom('audit')
        .select('hash')
        .orderBy('idx', 'desc')
        .limit(sql.lit(1))
        .as('audit_hash'),
    ]),
);

/**
 * What a write asks right after claiming its seq, answered by the claim's statement: when the
 * workspace's live locks expire (the latest `expires_at` of its unreleased locks; null: none)
 * and the audit log's head (null: empty). Valid in the claiming transaction until it changes
 * either (it holds the write lock, so no one else can).
 */
export interface ClaimHints {
  readonly workspaceId: string;
  readonly lockExpiry: number | null;
  readonly auditHead: { readonly idx: number; readonly hash: string } | null;
}

/**
 * Hands out the next `count` seqs of workspace `name` in one statement and returns its row, whose
 * seq is the last of them, with the claim's hints (undefined: no workspace). A count of 0 claims
 * nothing but still takes the row's write lock, so what the transaction reads next is not older
 * than its claim.
 */
export async function claimSeqs(
  db: Kysely<Database>,
  dialect: Parameters<typeof CLAIM_SEQS>[1],
  name: string,
  count: number,
): Promise<{ workspace: WorkspaceRecord; hints: ClaimHints } | undefined> {
  const [row] = await CLAIM_SEQS(db, dialect, name, count);
  if (!row) return undefined;
  const { lock_expiry: expiry, audit_idx: idx, audit_hash: hash } = row;
  return {
    workspace: toWorkspace(row),
    hints: {
      workspaceId: row.id,
      lockExpiry: expiry === null ? null : Number(expiry),
      auditHead: idx === null || hash === null ? null : { idx: Number(idx), hash },
    },
  };
}

/** Rows per multi-row INSERT: 64 rows of 15 columns stay under SQLite's oldest limit of 999. */
const CHUNK_ROWS = 64;

/**
 * Inserts `rows` with `insert` (a `preparedInsert`) in chunks of a power of two rows at most
 * CHUNK_ROWS, so each table compiles at most seven statements per dialect.
 */
export async function insertChunked<Row>(
  insert: (db: Kysely<Database>, dialect: SqlDialectInfo, rows: readonly Row[]) => Promise<void>,
  db: Kysely<Database>,
  dialect: SqlDialectInfo,
  rows: readonly Row[],
): Promise<void> {
  for (let i = 0; i < rows.length; ) {
    let size = CHUNK_ROWS;
    while (size > rows.length - i) size /= 2;
    await insert(db, dialect, rows.slice(i, i + size));
    i += size;
  }
}
