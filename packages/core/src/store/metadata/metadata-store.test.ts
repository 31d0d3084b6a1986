/** The MetadataStore contract on SQLite (file and :memory:), and SQLite's durability pragmas. */
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test-support/temp.js';
import { runMetadataStoreContract } from './metadata-store.contract.js';
import { MetadataStore } from './metadata-store.js';
import { openSqlite, SQLITE_DIALECT } from './sqlite.js';

async function migrated(file: string): Promise<MetadataStore> {
  const store = new MetadataStore(openSqlite(file), SQLITE_DIALECT);
  await store.migrate();
  return store;
}

runMetadataStoreContract('SQLite file', async () => {
  const store = await migrated(join(await tempDir('satchel-meta-'), 'meta.db'));
  // tempDir removes the directory after the test; the store must be closed before that.
  return { store, cleanup: () => store.close() };
});

runMetadataStoreContract('SQLite :memory:', async () => {
  const store = await migrated(':memory:');
  return { store, cleanup: () => store.close() };
});

describe('SQLite durability settings', () => {
  it('opens a database file in WAL mode with synchronous=FULL', async () => {
    const file = join(await tempDir('satchel-meta-'), 'meta.db');
    const db = openSqlite(file);
    const store = new MetadataStore(db, SQLITE_DIALECT);
    try {
      await store.migrate();
      // synchronous is per connection: ask the store's own connection.
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(db);
      expect(rows).toEqual([{ synchronous: 2 }]);
      // journal_mode=WAL is persistent: another connection sees it in the file itself.
      const reader = new BetterSqlite3(file, { readonly: true });
      try {
        expect(reader.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        reader.close();
      }
    } finally {
      await store.close();
    }
  });
});
