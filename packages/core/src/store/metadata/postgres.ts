/**
 * The PostgreSQL dialect module: the only place that knows it is PostgreSQL (with
 * postgres-fts.ts). Opens a `pg` pool behind Kysely's PostgresDialect, returns int8 columns as
 * JavaScript numbers like SQLite does, and gives lock leases their relaxed commits with
 * `SET LOCAL synchronous_commit = off` inside the lease's own transaction.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { SatchelError } from '@satchel/client/errors.js';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresDialect,
  type PostgresDialectConfig,
  PostgresDriver,
  sql,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { pgModule } from '../lazy-sdks.js';
import type { SqlDialectInfo } from './dialect.js';
import { pgUnavailable } from './postgres-errors.js';
import { POSTGRES_FULL_TEXT } from './postgres-fts.js';
import type { Database } from './tables.js';
import { DISCARD, SETTLE, WriteBehindConnection } from './write-behind.js';

/**
 * Set while a relaxed batch runs: transactions begun in it skip the WAL flush at commit. The
 * flag is switched off when the batch ends, so a timer or promise chain started inside it that
 * outlives it (async context follows them) never makes a later, durable transaction relaxed.
 */
const RELAXED = new AsyncLocalStorage<{ active: boolean }>();

/**
 * Set by `writeTransaction` until its transaction has begun: the driver then sends BEGIN and the
 * advisory lock in one round trip (a simple query of several statements), and switches it off.
 */
const WRITE = new AsyncLocalStorage<{ pending: boolean }>();

/** The schema's write lock: one 64-bit key per schema (nodes of another schema write on). */
const WRITE_LOCK =
  "select pg_advisory_xact_lock(hashtextextended('satchel.write.' || current_schema(), 0))";

/** The trigger function behind `appendOnly`, shared by every append-only table of a schema. */
const REFUSE_CHANGE = 'satchel_refuse_change';

export const POSTGRES_DIALECT: SqlDialectInfo = {
  name: 'postgres',
  binaryType: 'bytea',
  // The database's default collation may order "B" before "a" or ignore punctuation; range
  // scans over a directory's descendants need byte order, which "C" is (UTF-8 sorts by code point).
  textCollation: '"C"',
  relaxed: (db, fn) => {
    const flag = { active: true };
    return RELAXED.run(flag, async () => {
      try {
        return await fn(db);
      } finally {
        flag.active = false;
      }
    });
  },
  appendOnly: (table) => [
    `create or replace function ${REFUSE_CHANGE}() returns trigger language plpgsql as $$ ` +
      `begin raise exception '% is append-only: % refused', tg_table_name, lower(tg_op); end $$`,
    `create trigger ${table}_append_only before update or delete on ${table} ` +
      `for each row execute function ${REFUSE_CHANGE}()`,
    `create trigger ${table}_no_truncate before truncate on ${table} ` +
      `for each statement execute function ${REFUSE_CHANGE}()`,
  ],
  rowLocks: true,
  writeTransaction: (db, fn) => WRITE.run({ pending: true }, () => db.transaction().execute(fn)),
  settle: async (trx, options) => {
    await trx.executeQuery(options?.discard ? DISCARD : SETTLE);
  },
  script: async (db, statements) => {
    // No parameters: pg sends a simple query, which may hold several statements.
    if (statements.length > 0) await sql.raw(statements.join('; ')).execute(db);
  },
  unavailable: pgUnavailable,
  autoIncrement: 'identity',
  currentSchema: async (db) => {
    const { rows } = await sql<{
      schema: string | null;
    }>`select current_schema() as schema`.execute(db);
    return rows[0]?.schema ?? null;
  },
  syncIdentities: async (db) => {
    const { rows } = await sql<{ table: string; column: string }>`
      select table_name as table, column_name as column from information_schema.columns
      where table_schema = current_schema() and is_identity = 'YES'
    `.execute(db);
    for (const { table, column } of rows) {
      // is_called = false: the next generated value is max + 1 (1 for an empty table).
      await sql`
        select setval(pg_get_serial_sequence(${`"${table}"`}, ${column}),
          coalesce(max(${sql.ref(column)}), 0) + 1, false)
        from ${sql.table(table)}
      `.execute(db);
    }
  },
  fullText: POSTGRES_FULL_TEXT,
};

/**
 * Begins transactions with what they need in one round trip: the relaxed-commit setting inside
 * `POSTGRES_DIALECT.relaxed`, the write lock inside `writeTransaction`. Hands out connections
 * that hold a transaction's inserts back until something must answer (write-behind.ts).
 */
class SatchelPostgresDriver extends PostgresDriver {
  readonly #connections = new WeakMap<DatabaseConnection, WriteBehindConnection>();

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    let connection = this.#connections.get(inner);
    if (!connection) {
      connection = new WriteBehindConnection(inner);
      this.#connections.set(inner, connection);
    }
    return connection;
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await super.releaseConnection(innerOf(connection));
  }

  override async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    const statements: string[] = [];
    if (RELAXED.getStore()?.active) {
      // LOCAL: ends with this transaction, so the pooled connection never keeps it.
      statements.push('set local synchronous_commit = off');
    }
    const write = WRITE.getStore();
    if (write?.pending) {
      // Consumed here: a transaction begun later in the same async context is not a write's.
      write.pending = false;
      statements.push(WRITE_LOCK);
    }
    if (settings.isolationLevel || settings.accessMode || statements.length === 0) {
      await super.beginTransaction(connection, settings);
      for (const statement of statements) {
        await connection.executeQuery(CompiledQuery.raw(statement));
      }
    } else {
      // No parameters: a simple query, which may hold several statements.
      await connection.executeQuery(CompiledQuery.raw(['begin', ...statements].join('; ')));
    }
    if (connection instanceof WriteBehindConnection) connection.inTransaction = true;
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    // A failed flush leaves the transaction open: Kysely rolls it back.
    if (connection instanceof WriteBehindConnection) await connection.flush();
    await super.commitTransaction(innerOf(connection, { ended: true }));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof WriteBehindConnection) connection.discard();
    await super.rollbackTransaction(innerOf(connection, { ended: true }));
  }
}

/** The pooled connection behind `connection`; with `ended`, its transaction is over. */
function innerOf(connection: DatabaseConnection, options?: { ended: boolean }): PooledConnection {
  if (!(connection instanceof WriteBehindConnection)) return connection as PooledConnection;
  if (options?.ended) connection.inTransaction = false;
  return connection.inner as PooledConnection;
}

/** The driver's own connection type, which Kysely does not export. */
type PooledConnection = Parameters<PostgresDriver['releaseConnection']>[0];

class SatchelPostgresDialect extends PostgresDialect {
  readonly #config: PostgresDialectConfig;
  constructor(config: PostgresDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new SatchelPostgresDriver(this.#config);
  }
}

const INT8_OID = 20;

/**
 * Type parsers of this pool only (the `pg` module's global table stays as it is): int8 as a
 * number, as SQLite returns it. Every int8 Satchel stores (seqs, sizes, milliseconds, tokens)
 * is far below 2^53; counts (`count(*)` is int8) come back as numbers too.
 */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? (value: string) => Number(value)
      : pgModule().types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

export interface PostgresOptions {
  /**
   * Schema to keep Satchel's tables in (the connection's search_path); default: the role's
   * default search_path (usually `public`). Tests use one schema per test file.
   */
  readonly schema?: string;
  /** Largest number of connections in the pool (default 10). */
  readonly maxConnections?: number;
  /** Milliseconds to wait for a connection before failing (default 10 000). */
  readonly connectTimeoutMs?: number;
}

/** Valid unquoted identifier: what `schema` may be (it goes into a startup parameter). */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A pooled PostgreSQL database at `url` (postgres://user:password@host:port/db). Connects
 * lazily: the first query finds out whether the server is there (see `checkPostgres`).
 * INVALID_INPUT for a malformed schema name.
 */
export function openPostgres(url: string, options: PostgresOptions = {}): Kysely<Database> {
  const { schema } = options;
  if (schema !== undefined && !IDENTIFIER.test(schema)) {
    throw new SatchelError('INVALID_INPUT', `not a plain schema name: ${schema}`, {
      field: 'schema',
    });
  }
  const pool = new (pgModule().Pool)({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    types: TYPES,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  // An idle connection the server closes (restart, failover) must not crash the process; the
  // pool drops it and the next query opens a new one.
  pool.on('error', () => {});
  // A connection that dies while checked out (a transaction between statements) reports its
  // error on the client; the statement in flight fails with it, and nothing may crash the node.
  pool.on('connect', (client) => client.on('error', () => {}));
  return new Kysely<Database>({ dialect: new SatchelPostgresDialect({ pool }) });
}

/** `url` with its password replaced by `***`, fit for an error message or a log line. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  }
}

/**
 * Proves the database at `url` answers; otherwise UNAVAILABLE naming the URL (password
 * redacted) and the driver's reason, so a start against a wrong or down server fails in one line.
 */
export async function checkPostgres(db: Kysely<Database>, url: string): Promise<void> {
  try {
    await db.executeQuery(CompiledQuery.raw('select 1'));
  } catch (error) {
    const reason = describe(error);
    throw new SatchelError(
      'UNAVAILABLE',
      `cannot reach the PostgreSQL database at ${redactUrl(url)}: ${reason}`,
      {},
      { cause: error },
    );
  }
}

/** The driver's reason in one line (a refused dual-stack connect is an AggregateError with no message). */
function describe(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    const first: unknown = error.errors[0];
    if (first !== undefined) return describe(first);
  }
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return error.message || code || error.name;
  }
  return String(error);
}
