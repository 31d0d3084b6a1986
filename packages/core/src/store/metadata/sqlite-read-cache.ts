/**
 * Rows of hot reads kept while the database is unchanged. A read of one file asks the same
 * statement (workspace, role, entry, inline bytes) again and again; on a database nobody wrote
 * to since, the answer is the one already read. Whether anybody did is one cheap question:
 * `data_version` moves when another connection (another process) commits, `total_changes()` when
 * this connection changes a row, committed or rolled back. Any change drops every row kept: a
 * cached row never outlives a commit, so authorisation and content read from it are as fresh as
 * a statement's. Only asked outside a transaction (sqlite.ts, `directReader`), where committed
 * rows are all a read may see.
 *
 * Rows are kept frozen and handed out as copies, their byte columns too: no caller can change
 * what the next one reads.
 */
import type BetterSqlite3 from 'better-sqlite3';

/** Rows kept at most; beyond, the least recently used go. */
const MAX_ENTRIES = 1024;
/** Bytes of byte columns kept at most (inline content is at most 64 KiB a row). */
const MAX_BYTES = 8 * 1024 * 1024;

interface Kept {
  readonly rows: readonly Readonly<Record<string, unknown>>[];
  readonly bytes: number;
}

export class SqliteReadCache {
  readonly #version: BetterSqlite3.Statement;
  /** The version the kept rows and the asked keys belong to. */
  #current: string | null = null;
  readonly #kept = new Map<string, Kept>();
  #bytes = 0;
  /**
   * Keys asked since the version last changed, as far as anyone checked: a row is kept on its
   * second asking. Reads spread over many files, each asked once between commits, then cost
   * no version check half the time and no copy at all. Only ever a hint: kept rows alone are
   * answers, and they are always checked against the version.
   */
  readonly #asked = new Set<string>();

  constructor(raw: BetterSqlite3.Database) {
    this.#version = raw
      .prepare("select (select data_version from pragma_data_version) || ':' || total_changes()")
      .pluck();
  }

  /** The rows of `statement` for `params`: kept ones while nothing changed, else read anew. */
  read(statement: BetterSqlite3.Statement, sql: string, params: readonly unknown[]): unknown[] {
    const key = `${sql}\0${JSON.stringify(params)}`;
    if (!this.#asked.has(key)) {
      if (this.#asked.size >= MAX_ENTRIES) this.#asked.clear();
      this.#asked.add(key);
      return statement.all(params);
    }
    const version = this.#version.get() as string;
    if (version !== this.#current) {
      this.#clear(version);
      this.#asked.add(key);
      return statement.all(params);
    }
    const kept = this.#kept.get(key);
    if (kept) {
      // Most recently used last.
      this.#kept.delete(key);
      this.#kept.set(key, kept);
      return kept.rows.map(copyRow);
    }
    const rows = statement.all(params) as Record<string, unknown>[];
    this.#keep(key, rows);
    return rows;
  }

  #keep(key: string, rows: readonly Record<string, unknown>[]): void {
    let bytes = 0;
    const frozen = rows.map((row) => {
      const copy = copyRow(row);
      for (const value of Object.values(copy)) {
        if (value instanceof Uint8Array) bytes += value.byteLength;
      }
      return Object.freeze(copy);
    });
    if (bytes > MAX_BYTES / 16) return;
    this.#kept.set(key, { rows: frozen, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#kept) {
      if (this.#kept.size <= MAX_ENTRIES && this.#bytes <= MAX_BYTES) break;
      this.#kept.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }

  #clear(version: string): void {
    this.#kept.clear();
    this.#asked.clear();
    this.#bytes = 0;
    this.#current = version;
  }
}

/** A row with its byte columns copied: the caller's to keep or change. */
function copyRow(row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...row };
  for (const column in copy) {
    const value = copy[column];
    if (value instanceof Uint8Array) copy[column] = Buffer.from(value);
  }
  return copy;
}
