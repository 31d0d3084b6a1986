/**
 * Copying one metadata database into another, table by table (`satchel migrate`; the engine's
 * side is engine/migrate.ts). Rows are read with `select *` in primary-key order, a page at a
 * time, and inserted as they are (binary columns stay Buffers, integers numbers); each page
 * commits in one target transaction together with the progress record, so an interrupted copy
 * continues after the last committed page and never inserts a row twice.
 *
 * Adding a table to the schema means adding it to COPIED_TABLES, in foreign-key order.
 */
import { createHash, randomUUID } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type MetadataQueries, MetadataStore } from './metadata-store.js';
import type { Database } from './tables.js';

/** One table to copy: its primary key (the copy order), and its parent link if it nests. */
export interface CopiedTable {
  readonly table: keyof Database & string;
  /** Primary-key columns: pages are read in this order and resumed after the last key. */
  readonly key: readonly string[];
  /**
   * A column naming a parent row of the same table (api_keys.parent_id): such rows are copied
   * by depth (roots first), so a parent is always inserted before its children.
   */
  readonly parent?: string;
  /** Rows per page (default 1000); smaller for tables with large rows (inline content). */
  readonly pageRows?: number;
}

/** Every table of the schema, parents before children (foreign keys); the one list to extend. */
export const COPIED_TABLES: readonly CopiedTable[] = [
  { table: 'meta', key: ['key'] },
  { table: 'principals', key: ['id'] },
  { table: 'api_keys', key: ['id'], parent: 'parent_id' },
  { table: 'workspaces', key: ['id'] },
  // Inline content is up to 64 KiB a row: 100 rows keep a page within a few MiB.
  { table: 'blobs', key: ['hash'], pageRows: 100 },
  { table: 'versions', key: ['workspace_id', 'path', 'seq'] },
  { table: 'entries', key: ['workspace_id', 'path'] },
  // After entries and versions: their triggers find no counters to update while they are
  // copied, and the source's counters arrive whole.
  { table: 'workspace_usage', key: ['workspace_id'] },
  { table: 'members', key: ['workspace_id', 'principal_id'] },
  { table: 'invitations', key: ['id'] },
  { table: 'locks', key: ['id'] },
  { table: 'transfers', key: ['id'] },
  { table: 'audit', key: ['idx'] },
  { table: 'webhooks', key: ['id'] },
  { table: 'webhook_deliveries', key: ['id'] },
  { table: 'webhook_attempts', key: ['delivery_id', 'attempt'] },
  { table: 'upload_sessions', key: ['id'] },
  { table: 'upload_parts', key: ['upload_id', 'start'] },
  { table: 'used_transfer_tokens', key: ['id'] },
  { table: 'snapshots', key: ['workspace_id', 'name'] },
  { table: 'web_login_links', key: ['token_hash'] },
  { table: 'web_sessions', key: ['id'] },
  { table: 'comments', key: ['id'] },
  { table: 'share_links', key: ['id'] },
  { table: 'forks', key: ['workspace_id'] },
  // The full-text index follows the rows: FTS5 triggers on SQLite, a generated column on PostgreSQL.
  { table: 'passages', key: ['id'] },
  { table: 'search_state', key: ['workspace_id'] },
  { table: 'rate_windows', key: ['key', 'window_start'] },
  // Content being deleted stays marked in the copy, so its writers keep re-uploading it.
  { table: 'gc_blobs', key: ['hash'] },
  { table: 'leases', key: ['name'] },
];

/** The meta row of a copy target that says which source it is being copied from, and how far. */
export const MIGRATION_KEY = 'migration';
/** The meta row holding a database's own random identity, written at its first copy. */
export const INSTANCE_KEY = 'instance';

const DEFAULT_PAGE_ROWS = 1000;
/** PostgreSQL takes at most 65 535 parameters per statement. */
const MAX_PARAMETERS = 60_000;
/** The depth column added to pages of nesting tables (never inserted). */
const DEPTH = '__depth';

type Row = Record<string, unknown>;
/** The schema seen without its row types: the copy is generic over tables and columns. */
type AnyDatabase = Record<string, Row>;

/** What a copy target records about its copy (the `migration` meta row, JSON). */
export interface CopyMark {
  readonly source: { readonly instance: string; readonly path: string; readonly digest: string };
  readonly startedAt: number;
  /** The table being copied and the key of its last copied row; null before the first page. */
  readonly table: string | null;
  readonly after: readonly unknown[] | null;
  /** Rows copied so far, by table. */
  readonly copied: Readonly<Record<string, number>>;
  /** Set once the copy was verified. */
  readonly finishedAt: number | null;
}

/** A page of source rows and the key to continue after. */
export interface CopyPage {
  readonly rows: Row[];
  readonly after: unknown[] | null;
}

function raw(store: MetadataQueries): Kysely<AnyDatabase> {
  return MetadataStore.rawDatabase(store) as unknown as Kysely<AnyDatabase>;
}

/** This database's identity (a random id in `meta`), created now if it has none. */
export async function instanceId(store: MetadataStore): Promise<string> {
  const db = raw(store);
  await db
    .insertInto('meta')
    .values({ key: INSTANCE_KEY, value: randomUUID() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db
    .selectFrom('meta')
    .select('value')
    .where('key', '=', INSTANCE_KEY)
    .executeTakeFirstOrThrow();
  return String(row.value);
}

/**
 * Runs `fn` holding the source's write lock (SQLite: BEGIN IMMEDIATE) and reading one snapshot:
 * no other process can change the source until `fn` ends. CONFLICT when another process holds
 * the lock past the busy timeout (a running server writing to it).
 */
export async function withSourceLocked<T>(
  store: MetadataStore,
  fn: (source: CopySource) => Promise<T>,
): Promise<T> {
  try {
    return await raw(store)
      .transaction()
      .execute((trx) => fn(new CopySource(trx)));
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') {
      throw new SatchelError(
        'CONFLICT',
        'the data directory is in use: another process is writing to it (stop `satchel serve` and retry)',
        { reason: 'source_busy' },
        { cause: error },
      );
    }
    throw error;
  }
}

/** `(a, b)` of column references. */
function columns(names: readonly string[]): RawBuilder<unknown> {
  return sql`(${sql.join(names.map((n) => sql.ref(n)))})`;
}

/** The source side of a copy, inside its lock. */
export class CopySource {
  constructor(private readonly db: Kysely<AnyDatabase>) {}

  /** Up to `limit` rows of `spec` after the key `after` (null: from the start), in copy order. */
  async page(
    spec: CopiedTable,
    after: readonly unknown[] | null,
    limit: number,
  ): Promise<CopyPage> {
    const order = spec.parent === undefined ? spec.key : [DEPTH, ...spec.key];
    const rows =
      spec.parent === undefined
        ? await this.#flat(spec, after, limit)
        : await this.#byDepth(spec, spec.parent, after, limit);
    const last = rows.at(-1);
    const next = last === undefined ? null : order.map((c) => last[c]);
    for (const row of rows) delete row[DEPTH];
    return { rows, after: next };
  }

  async #flat(spec: CopiedTable, after: readonly unknown[] | null, limit: number): Promise<Row[]> {
    const where =
      after === null ? sql`` : sql`where ${columns(spec.key)} > (${sql.join([...after])})`;
    const { rows } = await sql<Row>`
      select * from ${sql.table(spec.table)} ${where}
      order by ${sql.join(spec.key.map((k) => sql.ref(k)))} limit ${limit}
    `.execute(this.db);
    return rows;
  }

  async #byDepth(
    spec: CopiedTable,
    parent: string,
    after: readonly unknown[] | null,
    limit: number,
  ): Promise<Row[]> {
    const [id] = spec.key;
    if (id === undefined || spec.key.length !== 1) {
      throw new SatchelError('INTERNAL', `${spec.table}: a nesting table needs a one-column key`);
    }
    const t = sql.table(spec.table);
    const tid = sql.ref(`t.${id}`);
    const where =
      after === null ? sql`` : sql`where (tree.depth, ${tid}) > (${sql.join([...after])})`;
    const { rows } = await sql<Row>`
      with recursive tree(id, depth) as (
        select ${sql.ref(id)}, 0 from ${t} where ${sql.ref(parent)} is null
        union all
        select c.${sql.ref(id)}, tree.depth + 1 from ${t} c join tree on c.${sql.ref(parent)} = tree.id
      )
      select t.*, tree.depth as ${sql.ref(DEPTH)} from ${t} t join tree on tree.id = ${tid}
      ${where}
      order by tree.depth, ${tid} limit ${limit}
    `.execute(this.db);
    return rows;
  }

  /** Rows per table. */
  counts(tables: readonly CopiedTable[] = COPIED_TABLES): Promise<Record<string, number>> {
    return countRows(this.db, tables, null);
  }

  /**
   * SHA-256 over every row of every table in copy order: equal digests mean an equal source,
   * so a copy interrupted earlier may continue. Reads the whole source once.
   */
  async digest(tables: readonly CopiedTable[] = COPIED_TABLES): Promise<string> {
    const hash = createHash('sha256');
    for (const spec of tables) {
      hash.update(`\n${spec.table}\n`);
      let after: readonly unknown[] | null = null;
      const limit = spec.pageRows ?? DEFAULT_PAGE_ROWS;
      for (;;) {
        const page = await this.page(spec, after, limit);
        for (const row of page.rows) hash.update(`${JSON.stringify(row, binaryAsHex)}\n`);
        if (page.rows.length < limit) break;
        after = page.after;
      }
    }
    return hash.digest('hex');
  }
}

function binaryAsHex(_key: string, value: unknown): unknown {
  // JSON.stringify has already turned a Buffer into {type, data} before the replacer sees it.
  if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer') {
    return Buffer.from((value as { data: number[] }).data).toString('hex');
  }
  return value;
}

async function countRows(
  db: Kysely<AnyDatabase>,
  tables: readonly CopiedTable[],
  skipMetaKey: string | null,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { table } of tables) {
    const skip =
      table === 'meta' && skipMetaKey !== null
        ? sql`where ${sql.ref('key')} <> ${skipMetaKey}`
        : sql``;
    const { rows } = await sql<{
      n: number | string;
    }>`select count(*) as n from ${sql.table(table)} ${skip}`.execute(db);
    counts[table] = Number(rows[0]?.n ?? 0);
  }
  return counts;
}

/** The target side of a copy: its mark, its emptiness, and pages written with progress. */
export class CopyTarget {
  readonly #store: MetadataStore;
  readonly #db: Kysely<AnyDatabase>;

  constructor(store: MetadataStore) {
    this.#store = store;
    this.#db = raw(store);
  }

  /** The mark of a copy into this database, or null if none was ever started. */
  async mark(): Promise<CopyMark | null> {
    const row = await this.#db
      .selectFrom('meta')
      .select('value')
      .where('key', '=', MIGRATION_KEY)
      .executeTakeFirst();
    return row ? (JSON.parse(String(row.value)) as CopyMark) : null;
  }

  /** Tables (meta aside) that hold rows, with their counts: what makes a target non-empty. */
  async occupied(tables: readonly CopiedTable[] = COPIED_TABLES): Promise<Record<string, number>> {
    const counts = await countRows(
      this.#db,
      tables.filter((t) => t.table !== 'meta'),
      null,
    );
    return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
  }

  /** Records `mark` (creating or replacing the row). */
  async setMark(mark: CopyMark): Promise<void> {
    await this.#putMark(this.#db, mark);
  }

  async #putMark(db: Kysely<AnyDatabase>, mark: CopyMark): Promise<void> {
    const value = JSON.stringify(mark);
    await db
      .insertInto('meta')
      .values({ key: MIGRATION_KEY, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  }

  /**
   * Inserts `rows` of `spec` and records `mark` in one transaction. Meta rows replace what the
   * target's own schema setup wrote (its format row); every other row must be new.
   */
  async writePage(spec: CopiedTable, rows: readonly Row[], mark: CopyMark): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      const width = Math.max(1, Object.keys(rows[0] ?? {}).length);
      const chunk = Math.max(1, Math.floor(MAX_PARAMETERS / width));
      for (let i = 0; i < rows.length; i += chunk) {
        const values = rows.slice(i, i + chunk);
        const insert = trx.insertInto(spec.table).values(values);
        if (spec.table === 'meta') {
          await insert
            .onConflict((oc) =>
              oc.column('key').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })),
            )
            .execute();
        } else {
          await insert.execute();
        }
      }
      await this.#putMark(trx, mark);
    });
  }

  /** Moves identity sequences past the copied keys (dialect.syncIdentities). */
  async syncIdentities(): Promise<void> {
    await this.#store.dialect.syncIdentities(MetadataStore.rawDatabase(this.#store));
  }

  /** Rows per table, leaving out the copy's own mark. */
  counts(tables: readonly CopiedTable[] = COPIED_TABLES): Promise<Record<string, number>> {
    return countRows(this.#db, tables, MIGRATION_KEY);
  }
}

/** Rows per page of `spec`, `override` when given (tests use small pages). */
export function pageRows(spec: CopiedTable, override?: number): number {
  return override ?? spec.pageRows ?? DEFAULT_PAGE_ROWS;
}
