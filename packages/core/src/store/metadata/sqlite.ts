/**
 * The SQLite dialect module: the only place that knows it is SQLite. Opens the database file with
 * the settings the durability rule needs and refuses to run without them.
 */

import { SatchelError } from '@satchel/client/errors.js';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  sql,
} from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import { SQLITE_FULL_TEXT } from './sqlite-fts.js';
import { SqliteReadCache } from './sqlite-read-cache.js';
import type { Database } from './tables.js';

export const SQLITE_DIALECT: SqlDialectInfo = {
  name: 'sqlite',
  binaryType: 'blob',
  textCollation: null,
  rowLocks: false,
  // An embedded file is never "unreachable": its errors are faults.
  unavailable: () => false,
  // A write transaction holds SQLite's one write lock until it ends (BEGIN IMMEDIATE).
  writeTransaction: (db, fn) => {
    const prepare = STATEMENTS.get(db);
    if (!prepare) return db.transaction().execute(fn);
    return db.transaction().execute(async (trx) => {
      // The transaction holds the one connection until it ends: its statements may run on it
      // directly, without Kysely's per-query connection hand-off (`directReader`).
      READERS.set(trx, (text, params) =>
        prepare.raw.inTransaction ? runOn(prepare, text, params) : undefined,
      );
      try {
        return await fn(trx);
      } finally {
        READERS.delete(trx);
      }
    });
  },
  script: async (db, statements) => {
    const direct = READERS.get(db);
    for (const statement of statements) {
      if (direct?.(statement, []) === undefined) await sql.raw(statement).execute(db);
    }
  },
  autoIncrement: 'autoincrement',
  currentSchema: async () => null,
  relaxed: (db, fn) =>
    // One connection throughout, so the setting applies to exactly this transaction's commit.
    db.connection().execute(async (conn) => {
      const prepare = STATEMENTS.get(db);
      if (prepare) STATEMENTS.set(conn, prepare);
      const synchronous = (mode: 'NORMAL' | 'FULL') => {
        const raw = RAW.get(db);
        // The raw handle skips Kysely's per-query cost; the connection is already ours.
        return raw
          ? raw.pragma(`synchronous = ${mode}`)
          : sql.raw(`pragma synchronous = ${mode}`).execute(conn);
      };
      await synchronous('NORMAL');
      try {
        return await fn(conn);
      } finally {
        await synchronous('FULL');
      }
    }),
  appendOnly: (table) =>
    (['update', 'delete'] as const).map(
      (op) =>
        `create trigger ${table}_no_${op} before ${op} on ${table} ` +
        `begin select raise(abort, '${table} is append-only: ${op} refused'); end`,
    ),
  syncIdentities: async () => {},
  fullText: SQLITE_FULL_TEXT,
};

const FULL = 2;

/**
 * Write transactions start with BEGIN IMMEDIATE: they take the write lock up front, so a second
 * process waits out the busy timeout instead of failing on a read-to-write upgrade.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

export interface SqliteOptions {
  /** Milliseconds a writer waits for another process's write lock (default 5000). */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) a SQLite database in WAL mode with `synchronous=FULL`, foreign keys
 * on and a busy timeout. Throws INTERNAL if the file cannot provide durable commits. The path
 * ":memory:" gives a non-durable database for tests.
 */
export function openSqlite(file: string, options: SqliteOptions = {}): Kysely<Database> {
  const raw = new BetterSqlite3(file);
  try {
    raw.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    if (file !== ':memory:') {
      const mode = raw.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw refuse(file, `journal_mode is ${String(mode)}, WAL is required`);
    }
    raw.pragma('synchronous = FULL');
    const sync = raw.pragma('synchronous', { simple: true });
    if (sync !== FULL) throw refuse(file, `synchronous is ${String(sync)}, FULL (2) is required`);
    raw.pragma('foreign_keys = ON');
  } catch (error) {
    raw.close();
    throw error;
  }
  const prepare = statementCache(raw);
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: { close: () => raw.close(), prepare } }),
  });
  RAW.set(db, raw);
  STATEMENTS.set(db, Object.assign(prepare, { raw }));
  // Committed rows only: while a transaction is open on the connection, the caller goes through
  // Kysely, which waits for it.
  // A statement that returns no rows (a write) also goes through Kysely outside a transaction.
  const cache = new SqliteReadCache(raw);
  READERS.set(db, (text, params, cached) => {
    if (raw.inTransaction) return undefined;
    const statement = prepare(text);
    if (!statement.reader) return undefined;
    return cached ? cache.read(statement, text, params) : statement.all(params);
  });
  return db;
}

/** The better-sqlite3 handle behind each Kysely instance this module opened. */
const RAW = new WeakMap<Kysely<Database>, BetterSqlite3.Database>();

type CachedStatements = ((text: string) => BetterSqlite3.Statement) & {
  readonly raw: BetterSqlite3.Database;
};

/** The statement cache of each connection this module opened (and of its single-connection views). */
const STATEMENTS = new WeakMap<Kysely<Database>, CachedStatements>();

/** Runs any statement on the cached statement for `text`: its rows, or none for a write. */
function runOn(prepare: CachedStatements, text: string, params: readonly unknown[]): unknown[] {
  const statement = prepare(text);
  if (statement.reader) return statement.all(params);
  statement.run(params);
  return [];
}

/** `cached`: the rows may come from the connection's read cache (sqlite-read-cache.ts). */
type DirectReader = (
  text: string,
  params: readonly unknown[],
  cached?: boolean,
) => unknown[] | undefined;

/** The direct reader of each Kysely instance this module opened (`directReader`). */
const READERS = new WeakMap<Kysely<Database>, DirectReader>();

/**
 * A synchronous reader on the connection behind `db` when `db` is a database this module opened
 * — or undefined, and the caller goes through Kysely. On the database, the reader answers from
 * committed data only: it returns undefined while a transaction is open on the connection (one
 * of Kysely's, between awaits), whose uncommitted rows it would otherwise see. On a write
 * transaction (`writeTransaction`) it runs any statement, reads and writes, in that transaction
 * while it is open.
 */
export function directReader(db: Kysely<Database>): DirectReader | undefined {
  return READERS.get(db);
}

const STATEMENT_CACHE = 256;

/**
 * Kysely prepares every query anew; preparing costs more than running most of ours. Kysely's
 * queries are parameterised, so their SQL text repeats and the prepared statements can be reused
 * (least recently used evicted).
 */
function statementCache(raw: BetterSqlite3.Database): (text: string) => BetterSqlite3.Statement {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return (text) => {
    let statement = statements.get(text);
    if (statement) {
      statements.delete(text);
    } else {
      statement = raw.prepare(text);
      if (statements.size >= STATEMENT_CACHE) {
        const oldest = statements.keys().next();
        if (!oldest.done) statements.delete(oldest.value);
      }
    }
    statements.set(text, statement);
    return statement;
  };
}

function refuse(file: string, reason: string): SatchelError {
  return new SatchelError('INTERNAL', `refusing to open ${file}: ${reason} for durable commits`);
}
