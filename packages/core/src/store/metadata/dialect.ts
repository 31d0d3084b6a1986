import type { Kysely, Transaction } from 'kysely';
import type { Database } from './tables.js';

/** A passage the full-text index matched, with its rank and a highlighted snippet. */
export interface PassageMatch {
  readonly id: number;
  readonly path: string;
  readonly seq: number;
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly text: string;
  readonly snippet: string;
  /** Relevance (SQLite: BM25; PostgreSQL: ts_rank_cd, docs/search.md); higher is better. */
  readonly score: number;
}

/** A matched passage as both full-text dialects select it; `rank` is the dialect's own score. */
export interface PassageRow {
  id: number;
  path: string;
  seq: number;
  line_start: number;
  line_end: number;
  text: string;
  snippet: string;
  rank: number;
}

/** `row` as a match, with the dialect's snippet and its score made higher-is-better. */
export function passageMatch(row: PassageRow, snippet: string, score: number): PassageMatch {
  return {
    id: Number(row.id),
    path: row.path,
    seq: Number(row.seq),
    lineStart: Number(row.line_start),
    lineEnd: Number(row.line_end),
    text: row.text,
    snippet,
    score,
  };
}

export interface PassageQuery {
  readonly workspaceId: string;
  /** Words to look for: passages holding all of them rank first, then those holding any. */
  readonly terms: readonly string[];
  /** Only passages of this path or of paths in [lo, hi) (a directory's descendants). */
  readonly scope?: { readonly path: string; readonly lo: string; readonly hi: string };
  readonly limit: number;
}

/** Full-text search over the `passages` table (docs/search.md); dialect-specific SQL lives here. */
export interface FullTextDialect {
  /** Statements that create the full-text index over `passages` and keep it in step with it. */
  schema(): string[];
  /** The best `limit` passages of a workspace for `terms`, best first. */
  search(db: Kysely<Database>, query: PassageQuery): Promise<PassageMatch[]>;
}

/** What the portable query layer needs to know about a SQL dialect beyond Kysely itself. */
export interface SqlDialectInfo {
  readonly name: 'sqlite' | 'postgres';
  /** Column type for binary data ('blob' in SQLite, 'bytea' in PostgreSQL). */
  readonly binaryType: 'blob' | 'bytea';
  /**
   * Collation that orders path columns byte-wise (UTF-8), which range scans over descendants
   * rely on. SQLite's default BINARY collation already does; PostgreSQL needs "C".
   */
  readonly textCollation: string | null;
  /**
   * Whether `SELECT … FOR UPDATE [SKIP LOCKED]` exists. Where it does not (SQLite), one writer
   * at a time already serialises every read-then-write of a transaction.
   */
  readonly rowLocks: boolean;
  /**
   * Runs `fn` in a write transaction: one that begins by waiting until no other write
   * transaction of the database runs, and holds that until commit or rollback. Writers then take
   * every other lock in one order, and the audit chain (one sequence for the whole database) has
   * one head. SQLite: a transaction (it has one writer at a time); PostgreSQL: a
   * transaction-scoped advisory lock of the schema, taken in the same round trip as BEGIN.
   */
  writeTransaction<T>(
    db: Kysely<Database>,
    fn: (trx: Transaction<Database>) => Promise<T>,
  ): Promise<T>;
  /**
   * Sends what the transaction `trx` holds back (PostgreSQL's write-behind, write-behind.ts),
   * so that its errors surface now; with `discard`, drops it instead (a rollback follows).
   * Absent where nothing is held back (SQLite).
   */
  settle?(trx: Kysely<Database>, options?: { discard: boolean }): Promise<void>;
  /**
   * Runs `statements` (no parameters) in order on `db`: one round trip on PostgreSQL, where
   * every statement costs one; one after another on SQLite, which runs one statement per call.
   */
  script(db: Kysely<Database>, statements: readonly string[]): Promise<void>;
  /**
   * Whether `error` means the database cannot be reached now (refused or lost connection, the
   * server shutting down or starting): the call failed as a whole and may be retried.
   */
  unavailable(error: unknown): boolean;
  /**
   * How a generated integer key is declared: SQLite's `integer primary key autoincrement`, or a
   * PostgreSQL identity column (Kysely's `autoIncrement()` is not PostgreSQL syntax).
   */
  readonly autoIncrement: 'autoincrement' | 'identity';
  /**
   * The schema the tables are created in (PostgreSQL's `current_schema()`), or null where the
   * dialect has none. Kysely's migrator must be told: otherwise it takes the migration tables
   * of any other schema in the database for its own.
   */
  currentSchema(db: Kysely<unknown>): Promise<string | null>;
  /** Statements that make `table` append-only: triggers that reject UPDATE and DELETE. */
  appendOnly(table: string): string[];
  /**
   * Runs `fn` (which opens and commits one transaction on the connection it is given) so that
   * its commit survives a crash of the process but not of the machine: SQLite's
   * `synchronous=NORMAL` for that commit, PostgreSQL's `synchronous_commit = off`. Used only for
   * short-lived lock leases (docs/storage.md, Durability).
   */
  relaxed<T>(db: Kysely<Database>, fn: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /**
   * After rows were inserted with their keys given (a copy, `satchel migrate`): moves every
   * generated key's counter past the largest key, so the next generated key is new. SQLite's
   * AUTOINCREMENT keeps up by itself; PostgreSQL's identity sequences do not.
   */
  syncIdentities(db: Kysely<Database>): Promise<void>;
  /** The search index's full-text part (SQLite: FTS5 with BM25; PostgreSQL: tsvector + GIN). */
  readonly fullText: FullTextDialect;
}
