/**
 * @satchel/core/testing: contract suites that implementations living outside core run with
 * their own factory. It imports vitest, so only test files may load it; the runtime entry
 * (index.ts) never does, and `files` in package.json leaves it out of the published package.
 */
export { runSatchelContract, type SatchelFixture } from './satchel.contract.js';
export {
  createTestSchema,
  postgresRequired,
  probePostgres,
  type TestSchema,
  testDatabaseUrl,
} from './test-support/postgres.js';
export {
  type S3TestServer,
  startS3Server,
  TEST_S3_CREDENTIALS,
} from './test-support/s3-server.js';
