/**
 * Vitest global setup: looks for the test PostgreSQL once per run and hands its URL to the test
 * files (`postgresUrlForTests`). Missing, it prints one line naming the variables, or fails the
 * run when `SATCHEL_TEST_REQUIRE_POSTGRES=1`.
 */
import type { TestProject } from 'vitest/node';
import {
  postgresRequired,
  probePostgres,
  REQUIRE_POSTGRES_VAR,
  TEST_DATABASE_URL_VAR,
  testDatabaseUrl,
} from './postgres.js';

export default async function setup(project: TestProject): Promise<void> {
  const url = testDatabaseUrl();
  const failure = await probePostgres(url);
  if (failure === null) {
    project.provide('postgresUrl', url);
    return;
  }
  if (postgresRequired()) {
    throw new Error(
      `${REQUIRE_POSTGRES_VAR} is set but PostgreSQL at ${url} is not reachable (${failure}); ` +
        `start it or point ${TEST_DATABASE_URL_VAR} at one`,
    );
  }
  console.warn(
    `PostgreSQL suites skipped: no database at ${url} (${failure}); set ${TEST_DATABASE_URL_VAR} ` +
      `to run them (${REQUIRE_POSTGRES_VAR}=1 makes this a failure)`,
  );
  project.provide('postgresUrl', null);
}
