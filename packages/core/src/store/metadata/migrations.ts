/**
 * Schema migrations, in code, written with Kysely's schema builder so that they run on every
 * dialect; the few type differences come from `SqlDialectInfo`.
 */

import { setTimeout } from 'node:timers/promises';
import { SatchelError } from '@satchel/client/errors.js';
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import { initialMigrations } from './migrations-initial.js';
import { reviewMigration } from './migrations-review.js';
import type { Database } from './tables.js';
import { recountUsage, usageTriggers } from './usage-queries.js';

/** Meta key: the first audit index written with a workspace id (set by 0006). */
export const AUDIT_WORKSPACE_ID_FROM = 'audit_workspace_id_from';

function migrations(dialect: SqlDialectInfo): Record<string, Migration> {
  const { binaryType, textCollation } = dialect;
  const pathColumn = textCollation ? sql`text collate ${sql.raw(textCollation)}` : sql`text`;
  return {
    ...initialMigrations(dialect),
    '0006_audit_workspace_id': {
      async up(db: Kysely<unknown>) {
        // A name can be reused after a delete; an id never is. Rows already written keep a null
        // id (the table is append-only and their hash does not cover one); the first index of
        // the new form is recorded, so reads can tell an old row from one with no workspace.
        await db.schema.alterTable('audit').addColumn('workspace_id', 'text').execute();
        await db.schema
          .createIndex('audit_by_workspace_id')
          .on('audit')
          .columns(['workspace_id', 'idx'])
          .execute();
        const typed = db as unknown as Kysely<Pick<Database, 'audit' | 'meta'>>;
        const head = await typed
          .selectFrom('audit')
          .select((eb) => eb.fn.max('idx').as('idx'))
          .executeTakeFirst();
        await typed
          .insertInto('meta')
          .values({ key: AUDIT_WORKSPACE_ID_FROM, value: String(Number(head?.idx ?? 0) + 1) })
          .execute();
      },
    },
    '0007_invitations': {
      async up(db: Kysely<unknown>) {
        // Membership by consent: an owner's add is an invitation until the invitee accepts.
        await db.schema
          .createTable('invitations')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) =>
            c.notNull().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('principal_name', 'text', (c) => c.notNull())
          .addColumn('principal_id', 'text', (c) =>
            c.references('principals.id').onDelete('cascade'),
          )
          .addColumn('role', 'text', (c) => c.notNull())
          .addColumn('invited_by', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('invitations_one_per_name', ['workspace_id', 'principal_name'])
          .execute();
        await db.schema
          .createIndex('invitations_by_principal')
          .on('invitations')
          .columns(['principal_id', 'expires_at'])
          .execute();
      },
    },
    '0008_rate_windows': {
      async up(db: Kysely<unknown>) {
        // Hits per key and fixed window, summed over every node (auth/rate-budgets.ts).
        await db.schema
          .createTable('rate_windows')
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('window_start', 'bigint', (c) => c.notNull())
          .addColumn('hits', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('rate_windows_pk', ['key', 'window_start'])
          .execute();
      },
    },
    '0009_content_gc': {
      async up(db: Kysely<unknown>) {
        // Content garbage collection (docs/storage.md): files seen without a registry row, and
        // content being deleted, which writers must not count as stored.
        await db.schema
          .createTable('gc_blobs')
          .addColumn('hash', 'text', (c) => c.primaryKey())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('since', 'bigint', (c) => c.notNull())
          .addColumn('checked_at', 'bigint', (c) => c.notNull())
          .execute();
        // One garbage collector at a time over all the nodes of a database.
        await db.schema
          .createTable('leases')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('holder', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '0010_uploads': {
      async up(db: Kysely<unknown>) {
        // Resumable uploads and used signed URLs (engine/uploads.ts, engine/transfer-urls.ts).
        await db.schema
          .createTable('upload_sessions')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) => c.notNull())
          .addColumn('path', pathColumn, (c) => c.notNull())
          .addColumn('principal_id', 'text', (c) => c.notNull())
          .addColumn('key_id', 'text')
          .addColumn('size', 'bigint', (c) => c.notNull())
          .addColumn('sha256', 'text')
          .addColumn('received', 'bigint', (c) => c.notNull())
          .addColumn('options', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('upload_sessions_by_workspace')
          .on('upload_sessions')
          .columns(['workspace_id', 'principal_id'])
          .execute();
        await db.schema
          .createTable('upload_parts')
          .addColumn('upload_id', 'text', (c) => c.notNull())
          .addColumn('workspace_id', 'text', (c) => c.notNull())
          .addColumn('start', 'bigint', (c) => c.notNull())
          .addColumn('size', 'bigint', (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.notNull())
          .addColumn('chunk_size', 'integer', (c) => c.notNull())
          .addColumn('chunks', binaryType, (c) => c.notNull())
          .addPrimaryKeyConstraint('upload_parts_pk', ['upload_id', 'start'])
          .execute();
        await db.schema
          .createTable('used_transfer_tokens')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '0011_snapshots': {
      async up(db: Kysely<unknown>) {
        // A name for a seq; reads "as of" it scan versions (the table is already keyed by path
        // and seq), so a snapshot costs one row whatever the workspace holds.
        await db.schema
          .createTable('snapshots')
          .addColumn('workspace_id', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('seq', 'bigint', (c) => c.notNull())
          .addColumn('created_by', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('message', 'text')
          .addPrimaryKeyConstraint('snapshots_pk', ['workspace_id', 'name'])
          .execute();
      },
    },
    '0012_workspace_usage': {
      async up(db: Kysely<unknown>) {
        // Counters for quotas and `ws usage` (usage-queries.ts), kept by triggers. The triggers
        // come first: creating them locks out writers (PostgreSQL) until the counts below commit.
        await db.schema
          .createTable('workspace_usage')
          .addColumn('workspace_id', 'text', (c) => c.primaryKey())
          .addColumn('current_bytes', 'bigint', (c) => c.notNull())
          .addColumn('history_bytes', 'bigint', (c) => c.notNull())
          .addColumn('files', 'bigint', (c) => c.notNull())
          .execute();
        for (const statement of usageTriggers(dialect.name)) await sql.raw(statement).execute(db);
        await recountUsage(db as Kysely<Database>);
      },
    },
    '0013_web_sessions': {
      async up(db: Kysely<unknown>) {
        // Sign-in for people (engine/web-sessions.ts): secrets are kept only as SHA-256 hashes.
        await db.schema
          .createTable('web_login_links')
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('principal_id', 'text', (c) =>
            c.notNull().references('principals.id').onDelete('cascade'),
          )
          .addColumn('created_by', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('web_sessions')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('secret_hash', 'text', (c) => c.notNull())
          .addColumn('principal_id', 'text', (c) =>
            c.notNull().references('principals.id').onDelete('cascade'),
          )
          .addColumn('user_agent', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('revoked_at', 'bigint')
          .execute();
        await db.schema
          .createIndex('web_sessions_by_principal')
          .on('web_sessions')
          .columns(['principal_id', 'expires_at'])
          .execute();
      },
    },
    '0014_comments_and_share_links': reviewMigration(dialect),
    '0015_forks': {
      async up(db: Kysely<unknown>) {
        // A fork's origin and the base of its next merge (engine/fork.ts); its files are rows
        // of entries and versions like any workspace's, sharing content by hash.
        await db.schema
          .createTable('forks')
          .addColumn('workspace_id', 'text', (c) => c.primaryKey())
          .addColumn('source_id', 'text', (c) => c.notNull())
          .addColumn('source_name', 'text', (c) => c.notNull())
          .addColumn('seq', 'bigint', (c) => c.notNull())
          .addColumn('base_source_seq', 'bigint', (c) => c.notNull())
          .addColumn('base_fork_seq', 'bigint', (c) => c.notNull())
          .addColumn('created_by', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('forks_by_source').on('forks').column('source_id').execute();
      },
    },
  };
}

/** Kysely's migrator over this build's migrations, with its tables in the current schema. */
async function migrator(db: Kysely<unknown>, dialect: SqlDialectInfo): Promise<Migrator> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  const schema = await dialect.currentSchema(db);
  return new Migrator({
    db,
    provider,
    ...(schema === null ? {} : { migrationTableSchema: schema }),
  });
}

/** Names of the migrations this database has not run yet (empty: the schema is current). */
export async function pendingMigrations(
  db: Kysely<unknown>,
  dialect: SqlDialectInfo,
): Promise<string[]> {
  const all = await (await migrator(db, dialect)).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/** PostgreSQL's words for a catalog row that vanished under a concurrent DROP or CREATE. */
const CATALOG_RACE =
  /cache lookup failed|could not open relation|concurrently (updated|deleted)|does not exist|duplicate key value violates unique constraint "pg_/;

/**
 * Brings the database to the newest schema; throws INTERNAL naming the failed migration, or
 * saying the schema is newer than this build (a migration ran that it does not know): an older
 * Satchel never writes to a schema it does not understand.
 */
export async function migrateToLatest(db: Kysely<unknown>, dialect: SqlDialectInfo): Promise<void> {
  let { error, results } = await (await migrator(db, dialect)).migrateToLatest();
  // Kysely looks at the catalog of every schema; PostgreSQL can fail that lookup while another
  // schema of the database is being dropped or created. Nothing ran: try again, a little later.
  for (
    let retry = 1;
    retry <= 5 && results === undefined && CATALOG_RACE.test(String(error));
    retry++
  ) {
    await setTimeout(20 * retry);
    ({ error, results } = await (await migrator(db, dialect)).migrateToLatest());
  }
  // Kysely's wording when the database has run a migration this build lacks.
  const newer = /previously executed migration (\S+) is missing/.exec(String(error));
  if (newer) {
    throw new SatchelError(
      'INTERNAL',
      `the database schema is newer than this version of Satchel (it has migration ${newer[1]}); ` +
        'run a version that knows it',
      {},
      { cause: error },
    );
  }
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new SatchelError(
      'INTERNAL',
      `database migration ${failed} failed: ${String(error)}`,
      {},
      {
        cause: error,
      },
    );
  }
}
