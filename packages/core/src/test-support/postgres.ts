/**
 * Test support for suites that run on a real PostgreSQL: where the database is, whether it is
 * there, and one throwaway schema per fixture (created here, dropped by the fixture's cleanup).
 *
 * `SATCHEL_TEST_DATABASE_URL` names the database (default postgres://postgres@127.0.0.1:5432/test).
 * Without a reachable database the PostgreSQL suites skip, with one line saying so (printed by
 * postgres-setup.ts, vitest's global setup); `SATCHEL_TEST_REQUIRE_POSTGRES=1` (set by .ci/run)
 * turns that into a failure, so CI cannot pass without running them.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { PostgresConfig } from '../store/open-stores.js';

export const TEST_DATABASE_URL_VAR = 'SATCHEL_TEST_DATABASE_URL';
export const REQUIRE_POSTGRES_VAR = 'SATCHEL_TEST_REQUIRE_POSTGRES';
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test database's URL when it answered at the start of the run, else null. */
    postgresUrl: string | null;
  }
}

/** The URL the PostgreSQL suites use (`SATCHEL_TEST_DATABASE_URL` or the default). */
export function testDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env[TEST_DATABASE_URL_VAR] || DEFAULT_TEST_DATABASE_URL;
}

/** Whether a missing database must fail the run (`SATCHEL_TEST_REQUIRE_POSTGRES=1`). */
export function postgresRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[REQUIRE_POSTGRES_VAR];
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

/** Null when `url` answers `select 1` within two seconds; otherwise why not. */
export async function probePostgres(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    if (error instanceof AggregateError && error.errors[0] instanceof Error) {
      return error.errors[0].message;
    }
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The test database's URL as the global setup found it: null when it is not there (the suite
 * then skips; the setup has already said so once, or failed the run when it is required).
 */
export function postgresUrlForTests(): string | null {
  return inject('postgresUrl') ?? null;
}

/** A fresh schema in the test database, and the metadata configuration that uses it. */
export interface TestSchema {
  readonly name: string;
  readonly config: PostgresConfig;
  /** Drops the schema and everything in it. Close every store on it first. */
  drop(): Promise<void>;
}

async function admin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates a uniquely named schema (satchel_test_…) in the database at `url`. */
export async function createTestSchema(url: string): Promise<TestSchema> {
  const name = `satchel_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  await admin(url, (c) => c.query(`create schema ${name}`));
  return {
    name,
    config: { kind: 'postgres', url, schema: name, maxConnections: 4 },
    drop: () => admin(url, (c) => c.query(`drop schema if exists ${name} cascade`)).then(() => {}),
  };
}
