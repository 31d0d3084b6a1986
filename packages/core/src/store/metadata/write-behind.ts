/**
 * Write-behind inside a PostgreSQL transaction: the inserts of a write (blob, version, entry,
 * audit entry) return nothing the write reads, so they wait and go to the server together, as
 * one statement of data-modifying CTEs, just before the next statement that must answer (or the
 * commit). A PUT's four inserts cost one round trip instead of four.
 *
 * Only inserts declared deferrable (`preparedInsert(…, { deferrable: true })`) wait, and never
 * two into the same table in one statement: the CTEs of a statement share one snapshot and may
 * not change one row twice. Whatever runs next — a read, a savepoint, the commit — sends what
 * waits first, so every read sees the transaction's own writes. An error of a waiting insert
 * surfaces there and fails the transaction, as it would have failed it anyway;
 * `MetadataStore.batch` settles each operation (`dialect.settle`) so a group commit's
 * operation fails alone, with its own error. SQLite has no round trips and never defers.
 */
import { CompiledQuery, type DatabaseConnection, type QueryResult } from 'kysely';

/** Deferrable statements, by SQL text (each compiled once), with the table each inserts into. */
const DEFERRABLE = new Map<string, string>();

/** Marks the compiled insert `sql` into `table` as one that may wait (see the module header). */
export function markDeferrable(sql: string, table: string): void {
  DEFERRABLE.set(sql, table);
}

/** Sent through a transaction: sends what waits (or, DISCARD, drops it) and answers nothing. */
export const SETTLE = CompiledQuery.raw('-- satchel: settle');
export const DISCARD = CompiledQuery.raw('-- satchel: discard');

/** Parameters one combined statement may carry (PostgreSQL's limit is 65,535). */
const MAX_PARAMETERS = 30_000;

const NOTHING: QueryResult<never> = { rows: [] };

/** A pooled connection that holds back deferrable inserts while it is in a transaction. */
export class WriteBehindConnection implements DatabaseConnection {
  inTransaction = false;
  #waiting: CompiledQuery[] = [];
  #tables = new Set<string>();
  #parameters = 0;

  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (query === DISCARD) {
      this.discard();
      return NOTHING;
    }
    const table = this.inTransaction ? DEFERRABLE.get(query.sql) : undefined;
    if (table !== undefined) {
      if (this.#tables.has(table) || this.#parameters + query.parameters.length > MAX_PARAMETERS) {
        await this.flush();
      }
      this.#waiting.push(query);
      this.#tables.add(table);
      this.#parameters += query.parameters.length;
      return NOTHING;
    }
    await this.flush();
    if (query === SETTLE) return NOTHING;
    return this.inner.executeQuery<R>(query);
  }

  async *streamQuery<R>(
    query: CompiledQuery,
    chunkSize?: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    await this.flush();
    yield* this.inner.streamQuery<R>(query, chunkSize);
  }

  /** Sends what waits, as one statement. */
  async flush(): Promise<void> {
    const waiting = this.#waiting;
    if (waiting.length === 0) return;
    this.discard();
    await this.inner.executeQuery(combined(waiting));
  }

  /** Drops what waits (a rollback undoes it anyway). */
  discard(): void {
    this.#waiting = [];
    this.#tables.clear();
    this.#parameters = 0;
  }
}

/** `queries` as one: all but the last as CTEs of the last, parameters renumbered in order. */
function combined(queries: readonly CompiledQuery[]): CompiledQuery {
  const [only] = queries;
  if (queries.length === 1 && only) return only;
  const parameters: unknown[] = [];
  const texts = queries.map((query) => {
    const shift = parameters.length;
    parameters.push(...query.parameters);
    return shift === 0
      ? query.sql
      : query.sql.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + shift}`);
  });
  const last = texts.pop();
  const ctes = texts.map((text, i) => `w${i} as (${text})`).join(', ');
  return CompiledQuery.raw(`with ${ctes} ${last}`, parameters);
}
