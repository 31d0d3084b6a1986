/**
 * Test-only escape hatch: the raw query builder under a metadata store, for tests that tamper
 * with rows (or read columns no record shows) to prove what the code does about it. Production
 * code never imports this file; it goes through the store's areas (`store.locks`, …).
 */
import type { Kysely } from 'kysely';
import { MetadataQueries } from './metadata-queries.js';
import type { Database } from './tables.js';

export type { Database } from './tables.js';

/** The Kysely handle of `store` (or of a transaction), to write rows no operation would. */
export function rawDatabase(store: MetadataQueries): Kysely<Database> {
  return MetadataQueries.rawDatabase(store);
}
