/**
 * Hot queries, compiled once. Kysely builds and compiles a query on every call — for a 4 KiB read
 * that was a fifth of the CPU. `prepared` builds the query once per dialect with placeholders
 * for its arguments, keeps the SQL text and where each argument goes, and afterwards only fills
 * in the parameters. On SQLite, a read runs straight on the connection's cached statement when no
 * transaction is open on it (sqlite.ts, `directReader`); everything else goes through Kysely's
 * executor (the transaction's connection inside a transaction, the pool on PostgreSQL).
 *
 * Only for queries whose shape does not depend on the arguments (no optional clauses, no lists
 * of varying length): the placeholders stand for single values. `preparedInsert` covers the
 * one varying shape the hot path needs, multi-row inserts, with a template per row count.
 */

import {
  type Compilable,
  CompiledQuery,
  type InsertQueryBuilder,
  type InsertResult,
  type Kysely,
} from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import { directReader } from './sqlite.js';
import type { Database } from './tables.js';
import { markDeferrable } from './write-behind.js';

/** Stands for argument `index` while the query is compiled. */
class Placeholder {
  constructor(readonly index: number) {}
}

interface Template {
  readonly sql: string;
  /** Per parameter: the argument's index, or the constant the query was built with. */
  readonly slots: readonly (Placeholder | { readonly value: unknown })[];
}

function templateOf(query: Compilable<unknown>): Template {
  const compiled = query.compile();
  return {
    sql: compiled.sql,
    slots: compiled.parameters.map((p) => (p instanceof Placeholder ? p : { value: p })),
  };
}

function placeholders(count: number): Placeholder[] {
  return Array.from({ length: count }, (_, i) => new Placeholder(i));
}

async function run<Row>(
  db: Kysely<Database>,
  { sql, slots }: Template,
  args: readonly unknown[],
  cached = false,
): Promise<Row[]> {
  const params = slots.map((slot) => (slot instanceof Placeholder ? args[slot.index] : slot.value));
  const rows = directReader(db)?.(sql, params, cached);
  if (rows !== undefined) return rows as Row[];
  return (await db.executeQuery<Row>(CompiledQuery.raw(sql, params))).rows as Row[];
}

/** A compiled query: call it with the database (or transaction) to run it on and its arguments. */
export type Prepared<Args extends readonly unknown[], Row> = (
  db: Kysely<Database>,
  dialect: SqlDialectInfo,
  ...args: Args
) => Promise<Row[]>;

/**
 * Compiles `build` once per dialect; `build` receives the database and one placeholder per
 * declared argument (its parameter list sets how many), used where the argument's value goes.
 * `cached`: on SQLite, outside a transaction, the rows may come from the connection's read cache,
 * kept until anything changes (sqlite-read-cache.ts); only for a read whose answer depends on
 * the database and its arguments alone (no clock).
 */
export function prepared<Args extends readonly unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
  options: { cached?: boolean } = {},
): Prepared<Args, Row> {
  const templates = new Map<string, Template>();
  return (db, dialect, ...args) => {
    let template = templates.get(dialect.name);
    if (!template) {
      template = templateOf(build(db, ...(placeholders(build.length - 1) as unknown as Args)));
      templates.set(dialect.name, template);
    }
    return run<Row>(db, template, args, options.cached);
  };
}

/**
 * As `prepared`, for a query with one list of values of varying length (an `in (…)`): compiled
 * once per dialect and list length (callers bound the length, e.g. to 500). `build` receives a
 * placeholder per list value, then one per further argument.
 */
export function preparedIn<Args extends readonly unknown[], Row>(
  build: (db: Kysely<Database>, list: readonly unknown[], ...args: Args) => Compilable<Row>,
): (
  db: Kysely<Database>,
  dialect: SqlDialectInfo,
  list: readonly unknown[],
  ...args: Args
) => Promise<Row[]> {
  const templates = new Map<string, Template>();
  return (db, dialect, list, ...args) => {
    const key = `${dialect.name}:${list.length}`;
    let template = templates.get(key);
    if (!template) {
      const slots = placeholders(list.length + build.length - 2);
      const rest = slots.slice(list.length) as unknown as Args;
      template = templateOf(build(db, slots.slice(0, list.length), ...rest));
      templates.set(key, template);
    }
    return run<Row>(db, template, [...list, ...args]);
  };
}

/**
 * A multi-row INSERT into `table` of rows with these `columns`, compiled once per dialect and
 * row count (callers keep the counts few, e.g. powers of two); `finish` adds what follows the
 * values (an ON CONFLICT clause). `deferrable`: inside a PostgreSQL transaction the insert may
 * wait to be sent with the next statement (write-behind.ts); only for inserts whose caller reads
 * nothing back and expects no error of its own.
 */
export function preparedInsert<T extends keyof Database, Row extends Record<string, unknown>>(
  table: T,
  columns: readonly (keyof Row & string)[],
  finish: (insert: InsertQueryBuilder<Database, T, InsertResult>) => Compilable<unknown> = (
    insert,
  ) => insert,
  options: { deferrable?: boolean } = {},
): (db: Kysely<Database>, dialect: SqlDialectInfo, rows: readonly Row[]) => Promise<void> {
  const templates = new Map<string, Template>();
  return async (db, dialect, rows) => {
    const key = `${dialect.name}:${rows.length}`;
    let template = templates.get(key);
    if (!template) {
      const slots = placeholders(rows.length * columns.length);
      const values = rows.map((_, r) =>
        Object.fromEntries(columns.map((column, c) => [column, slots[r * columns.length + c]])),
      );
      template = templateOf(finish(db.insertInto(table).values(values as never)));
      templates.set(key, template);
      if (options.deferrable) markDeferrable(template.sql, table);
    }
    await run(
      db,
      template,
      rows.flatMap((row) => columns.map((column) => row[column])),
    );
  };
}
