import type { Kysely } from 'kysely';
import type { Database } from './tables.js';

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
  /** Statements that make `table` append-only: triggers that reject UPDATE and DELETE. */
  appendOnly(table: string): string[];
  /**
   * Runs `fn` (which opens and commits one transaction on the connection it is given) so that
   * its commit survives a crash of the process but not of the machine: SQLite's
   * `synchronous=NORMAL` for that commit, PostgreSQL's `synchronous_commit = off`. Used only for
   * short-lived lock leases (docs/storage.md, Durability).
   */
  relaxed<T>(db: Kysely<Database>, fn: (db: Kysely<Database>) => Promise<T>): Promise<T>;
}
