/**
 * Which stores an engine runs on, as a small configuration, and the one place that opens them.
 * The embedded default keeps both in the data directory: a SQLite file and a blob directory.
 * Metadata may live in PostgreSQL instead (`metadata/postgres.ts`), content in an S3-compatible
 * bucket (`s3-blob-store.ts`); nothing in the engine changes.
 */
import { join, resolve } from 'node:path';
import { SatchelError } from '@satchel/client/errors.js';
import type { BlobStore } from './blob-store.js';
import { DataDirSignals } from './data-dir-signals.js';
import { FsBlobStore } from './fs-blob-store.js';
import { MemoryBlobStore } from './memory-blob-store.js';
import { MetadataStore } from './metadata/metadata-store.js';
import {
  checkPostgres,
  openPostgres,
  POSTGRES_DIALECT,
  type PostgresOptions,
  redactUrl,
} from './metadata/postgres.js';
import { PgSignals } from './metadata/postgres-signals.js';
import { openSqlite, SQLITE_DIALECT, type SqliteOptions } from './metadata/sqlite.js';
import { S3BlobStore } from './s3-blob-store.js';
import type { S3ClientSettings } from './s3-multipart.js';
import { LocalSignals, type Signals } from './signals.js';

/** Metadata in a SQLite file (":memory:" for a throwaway database). */
export interface SqliteConfig extends SqliteOptions {
  readonly kind: 'sqlite';
  readonly file: string;
}

/**
 * Content in an S3-compatible bucket (`SATCHEL_BLOBS=s3://bucket/prefix`). Endpoint, region and
 * credentials not given here come from the AWS SDK's usual environment variables and files.
 */
export interface S3BlobsConfig extends S3ClientSettings {
  readonly kind: 's3';
  readonly bucket: string;
  readonly prefix: string;
}

/** Content in a directory of files (restic-style fan-out), an S3 bucket, or memory for tests. */
export type BlobsConfig =
  | { readonly kind: 'directory'; readonly path: string }
  | S3BlobsConfig
  | { readonly kind: 'memory' };

/**
 * The content store `SATCHEL_BLOBS` (or `--blobs`, `--to-blobs`) names: `s3://bucket/prefix`, or
 * a directory (resolved against `cwd`). For S3, `env` supplies `AWS_ENDPOINT_URL_S3` (then
 * path-style addressing is the default), `SATCHEL_S3_FORCE_PATH_STYLE` (1/0), `AWS_REGION` and
 * the `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN` keys; without keys the
 * SDK's own credential chain applies (profiles, instance and task roles). INVALID_INPUT for an s3:// URL without a bucket.
 */
export function blobsConfig(
  value: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  cwd = process.cwd(),
): BlobsConfig {
  const trimmed = value.trim();
  if (!/^s3:\/\//i.test(trimmed)) return { kind: 'directory', path: resolve(cwd, trimmed) };
  const rest = trimmed.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const prefix = slash < 0 ? '' : rest.slice(slash + 1).replace(/^\/+/, '');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new SatchelError(
      'INVALID_INPUT',
      `not an S3 bucket URL: ${value} (expected s3://bucket/prefix, bucket in lowercase letters, digits, dots and dashes)`,
      { field: 'blobs' },
    );
  }
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  const pathStyle = env.SATCHEL_S3_FORCE_PATH_STYLE;
  const forcePathStyle =
    pathStyle === undefined || pathStyle === '' ? endpoint !== undefined : pathStyle !== '0';
  // Read here as well as by the SDK, which only sees process.env (the CLI passes its own env).
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined;
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  const sessionToken = env.AWS_SESSION_TOKEN || undefined;
  return {
    kind: 's3',
    bucket,
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
    forcePathStyle,
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(region === undefined ? {} : { region }),
    // Without keys in the environment, the SDK's chain (profiles, instance roles…) applies.
    ...(accessKeyId && secretAccessKey
      ? {
          credentials: {
            accessKeyId,
            secretAccessKey,
            ...(sessionToken === undefined ? {} : { sessionToken }),
          },
        }
      : {}),
  };
}

/** Where `config` keeps content, for messages: a directory path or `s3://bucket/prefix`. */
export function describeBlobs(config: BlobsConfig): string {
  if (config.kind === 'directory') return config.path;
  if (config.kind === 's3') return `s3://${config.bucket}/${config.prefix}`;
  return 'memory';
}

/** Metadata in a PostgreSQL database (`SATCHEL_DATABASE_URL`; docs/storage.md). */
export interface PostgresConfig extends PostgresOptions {
  readonly kind: 'postgres';
  /** postgres://user:password@host:port/database */
  readonly url: string;
}

export type MetadataConfig = SqliteConfig | PostgresConfig;

/**
 * The metadata configuration a database URL (`SATCHEL_DATABASE_URL`, `--database-url`) names:
 * postgres:// or postgresql://. INVALID_INPUT for anything else, naming what was given
 * (password redacted).
 */
export function databaseUrlConfig(url: string): PostgresConfig {
  if (!/^postgres(ql)?:\/\/./i.test(url.trim())) {
    throw new SatchelError(
      'INVALID_INPUT',
      `not a PostgreSQL URL: ${redactUrl(url)} (expected postgres://user:password@host:port/database)`,
      { field: 'databaseUrl' },
    );
  }
  return { kind: 'postgres', url: url.trim() };
}

export interface StoreConfig {
  readonly metadata: MetadataConfig;
  readonly blobs: BlobsConfig;
}

export const DATABASE_FILE = 'satchel.db';
/** Appended to a SQLite file's name: the file its processes signal each other through. */
export const SIGNALS_SUFFIX = '-signals';
export const BLOBS_DIR = 'blobs';

/** The embedded stores of a data directory (`root`), or in-memory ones when `root` is null. */
export function embeddedStores(root: string | null): StoreConfig {
  return root === null
    ? { metadata: { kind: 'sqlite', file: ':memory:' }, blobs: { kind: 'memory' } }
    : {
        metadata: { kind: 'sqlite', file: join(root, DATABASE_FILE) },
        blobs: { kind: 'directory', path: join(root, BLOBS_DIR) },
      };
}

/**
 * Opens the metadata store `config` names; the schema is not migrated yet. A PostgreSQL
 * database must answer now: UNAVAILABLE naming its URL (password redacted) otherwise.
 */
export async function openMetadata(config: MetadataConfig): Promise<MetadataStore> {
  if (config.kind === 'postgres') {
    const { kind: _kind, url, ...options } = config;
    const db = openPostgres(url, options);
    try {
      await checkPostgres(db, url);
    } catch (error) {
      await db.destroy();
      throw error;
    }
    return new MetadataStore(db, POSTGRES_DIALECT);
  }
  const { kind: _kind, file, ...options } = config;
  return new MetadataStore(openSqlite(file, options), SQLITE_DIALECT);
}

/**
 * How the nodes sharing the metadata database `config` names hear of each other's commits and
 * lock releases: LISTEN/NOTIFY on PostgreSQL (the database must answer now); for a SQLite file,
 * a watched signal file beside it (`satchel.db-signals`), shared by every process that opens it;
 * in-process for a database in memory.
 */
export async function openSignals(config: MetadataConfig): Promise<Signals> {
  if (config.kind === 'sqlite') {
    return config.file === ':memory:'
      ? new LocalSignals()
      : DataDirSignals.open(`${config.file}${SIGNALS_SUFFIX}`);
  }
  return PgSignals.connect({
    connectionString: config.url,
    ...(config.schema === undefined ? {} : { options: `-c search_path=${config.schema}` }),
  });
}

/** Opens (creating if needed) the content store `config` names. */
export async function openBlobs(config: BlobsConfig): Promise<BlobStore> {
  if (config.kind === 'directory') return FsBlobStore.open(config.path);
  if (config.kind === 's3') {
    const { kind: _kind, ...options } = config;
    return new S3BlobStore(options);
  }
  return new MemoryBlobStore();
}
