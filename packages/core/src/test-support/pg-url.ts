/**
 * The PostgreSQL that tests run against: `SATCHEL_TEST_DATABASE_URL` (default: the local one of
 * these machines). Unreachable: null, so suites skip with one line saying how to run them — unless
 * `SATCHEL_TEST_REQUIRE_POSTGRES=1` (CI), which makes it a failure.
 */
import pg from 'pg';

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';
let reported = false;

export async function postgresUrl(): Promise<string | null> {
  const url = process.env.SATCHEL_TEST_DATABASE_URL ?? DEFAULT_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return url;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (process.env.SATCHEL_TEST_REQUIRE_POSTGRES === '1') {
      throw new Error(`PostgreSQL required (SATCHEL_TEST_REQUIRE_POSTGRES=1) but ${url}: ${why}`);
    }
    if (!reported) {
      reported = true;
      console.warn(
        `PostgreSQL suites skipped: no database at ${url} (${why}); set SATCHEL_TEST_DATABASE_URL`,
      );
    }
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}
