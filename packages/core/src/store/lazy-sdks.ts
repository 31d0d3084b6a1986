/**
 * The client libraries of the scale-out backends, loaded when one is first used, so a run on
 * the embedded stores (SQLite and a blob directory: every CLI command on a data directory) never
 * loads them; together they are about a quarter of a second of start-up. Both are CommonJS:
 * `require` returns the very module object a static `import` of them would.
 */
import { createRequire } from 'node:module';
import type * as S3 from '@aws-sdk/client-s3';
import type Pg from 'pg';

const require = createRequire(import.meta.url);

/** `@aws-sdk/client-s3`, for S3BlobStore. */
export function s3Sdk(): typeof S3 {
  return require('@aws-sdk/client-s3') as typeof S3;
}

/** `pg`, for metadata in PostgreSQL and its LISTEN/NOTIFY signals. */
export function pgModule(): typeof Pg {
  return require('pg') as typeof Pg;
}
