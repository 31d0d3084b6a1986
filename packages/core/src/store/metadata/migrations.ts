/**
 * Schema migrations, in code, written with Kysely's schema builder so that they run on every
 * dialect; the few type differences come from `SqlDialectInfo`.
 */

import { SatchelError } from '@satchel/client/errors.js';
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import type { Database } from './tables.js';

/** Meta key: the first audit index written with a workspace id (set by 0006). */
export const AUDIT_WORKSPACE_ID_FROM = 'audit_workspace_id_from';

function migrations(dialect: SqlDialectInfo): Record<string, Migration> {
  const { binaryType, textCollation } = dialect;
  const pathColumn = textCollation ? sql`text collate ${sql.raw(textCollation)}` : sql`text`;
  return {
    '0001_initial': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('meta')
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('value', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('workspaces')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull().unique())
          .addColumn('seq', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
          .execute();
        await db.schema
          .createTable('blobs')
          .addColumn('hash', 'text', (c) => c.primaryKey())
          .addColumn('size', 'bigint', (c) => c.notNull())
          .addColumn('location', 'text', (c) => c.notNull())
          .addColumn('data', binaryType)
          .addColumn('chunk_size', 'integer')
          .addColumn('chunks', binaryType)
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('versions')
          .addColumn('workspace_id', 'text', (c) =>
            c.notNull().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('path', pathColumn, (c) => c.notNull())
          .addColumn('seq', 'bigint', (c) => c.notNull())
          .addColumn('op', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('deleted', 'integer', (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.references('blobs.hash'))
          .addColumn('size', 'bigint', (c) => c.notNull())
          .addColumn('content_type', 'text')
          .addColumn('author', 'text', (c) => c.notNull())
          .addColumn('session', 'text')
          .addColumn('message', 'text')
          .addColumn('origin_path', pathColumn)
          .addColumn('origin_seq', 'bigint')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('versions_pk', ['workspace_id', 'path', 'seq'])
          .execute();
        await db.schema
          .createIndex('versions_by_seq')
          .on('versions')
          .columns(['workspace_id', 'seq'])
          .execute();
        await db.schema.createIndex('versions_by_hash').on('versions').column('hash').execute();
        await db.schema
          .createTable('entries')
          .addColumn('workspace_id', 'text', (c) =>
            c.notNull().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('path', pathColumn, (c) => c.notNull())
          .addColumn('parent', pathColumn, (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('seq', 'bigint', (c) => c.notNull())
          .addColumn('size', 'bigint', (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.references('blobs.hash'))
          .addColumn('content_type', 'text')
          .addColumn('author', 'text', (c) => c.notNull())
          .addColumn('session', 'text')
          .addColumn('modified_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('entries_pk', ['workspace_id', 'path'])
          .execute();
        await db.schema
          .createIndex('entries_by_parent')
          .on('entries')
          .columns(['workspace_id', 'parent', 'path'])
          .execute();
      },
    },
    '0002_access': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable('workspaces')
          .addColumn('fence', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema
          .createTable('principals')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull().unique())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('admin', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('api_keys')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('principal_id', 'text', (c) =>
            c.notNull().references('principals.id').onDelete('cascade'),
          )
          .addColumn('secret_hash', 'text', (c) => c.notNull())
          .addColumn('label', 'text')
          .addColumn('workspaces', 'text')
          .addColumn('role_ceiling', 'text')
          .addColumn('path_prefixes', 'text')
          .addColumn('read_only', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('expires_at', 'bigint')
          .addColumn('revoked_at', 'bigint')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('members')
          .addColumn('workspace_id', 'text', (c) =>
            c.notNull().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('principal_id', 'text', (c) =>
            c.notNull().references('principals.id').onDelete('cascade'),
          )
          .addColumn('role', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('members_pk', ['workspace_id', 'principal_id'])
          .execute();
        await db.schema
          .createTable('locks')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) =>
            c.notNull().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('path', pathColumn, (c) => c.notNull())
          .addColumn('scope', 'text', (c) => c.notNull())
          .addColumn('mode', 'text', (c) => c.notNull())
          .addColumn('token', 'bigint', (c) => c.notNull())
          .addColumn('holder', 'text', (c) => c.notNull())
          .addColumn('session', 'text')
          .addColumn('acquired_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('released_at', 'bigint')
          .addColumn('released_by', 'text')
          .execute();
        await db.schema
          .createIndex('locks_by_token')
          .on('locks')
          .columns(['workspace_id', 'token'])
          .unique()
          .execute();
        await db.schema
          .createIndex('locks_live')
          .on('locks')
          .columns(['workspace_id', 'released_at', 'expires_at'])
          .execute();
        await db.schema
          .createTable('transfers')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) =>
            c.notNull().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('code_hash', 'text', (c) => c.notNull().unique())
          .addColumn('offered_by', 'text', (c) => c.notNull())
          .addColumn('to_principal', 'text')
          .addColumn('previous_owner_role', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('accepted_at', 'bigint')
          .addColumn('accepted_by', 'text')
          .addColumn('cancelled_at', 'bigint')
          .execute();
        await db.schema
          .createTable('audit')
          .addColumn('idx', 'bigint', (c) => c.primaryKey())
          .addColumn('time', 'bigint', (c) => c.notNull())
          .addColumn('actor', 'text', (c) => c.notNull())
          .addColumn('session', 'text')
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('workspace', 'text')
          .addColumn('path', 'text')
          .addColumn('seq', 'bigint')
          .addColumn('outcome', 'text', (c) => c.notNull())
          .addColumn('code', 'text')
          .addColumn('prev_hash', 'text', (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('audit_by_workspace')
          .on('audit')
          .columns(['workspace', 'idx'])
          .execute();
        for (const statement of dialect.appendOnly('audit')) await sql.raw(statement).execute(db);
      },
    },
    '0003_webhooks': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('webhooks')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) =>
            c.notNull().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('events', 'text', (c) => c.notNull())
          .addColumn('path_glob', 'text')
          .addColumn('description', 'text')
          .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
          .addColumn('enabled', 'integer', (c) => c.notNull())
          .addColumn('disabled_reason', 'text')
          .addColumn('cursor', 'bigint', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('created_by', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('webhooks_by_workspace')
          .on('webhooks')
          .columns(['workspace_id', 'created_at'])
          .execute();
        await db.schema
          .createTable('webhook_deliveries')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('webhook_id', 'text', (c) =>
            c.notNull().references('webhooks.id').onDelete('cascade'),
          )
          .addColumn('workspace_id', 'text', (c) =>
            c.notNull().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('event_seq', 'bigint', (c) => c.notNull())
          .addColumn('event_path', pathColumn, (c) => c.notNull())
          .addColumn('event_type', 'text', (c) => c.notNull())
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('next_attempt_at', 'bigint')
          .addColumn('last_status', 'integer')
          .addColumn('last_error', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('delivered_at', 'bigint')
          .execute();
        await db.schema
          .createIndex('webhook_deliveries_by_event')
          .on('webhook_deliveries')
          .columns(['webhook_id', 'event_seq', 'event_path'])
          .unique()
          .execute();
        await db.schema
          .createIndex('webhook_deliveries_due')
          .on('webhook_deliveries')
          .columns(['status', 'next_attempt_at'])
          .execute();
        await db.schema
          .createTable('webhook_attempts')
          .addColumn('delivery_id', 'text', (c) =>
            c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
          )
          .addColumn('workspace_id', 'text', (c) =>
            c.notNull().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('attempt', 'integer', (c) => c.notNull())
          .addColumn('at', 'bigint', (c) => c.notNull())
          .addColumn('status', 'integer')
          .addColumn('error', 'text')
          .addColumn('duration_ms', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
          .execute();
      },
    },
    '0004_search': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('passages')
          .addColumn('id', dialect.autoIncrement === 'identity' ? 'bigint' : 'integer', (c) =>
            dialect.autoIncrement === 'identity'
              ? c.primaryKey().generatedByDefaultAsIdentity()
              : c.primaryKey().autoIncrement(),
          )
          .addColumn('workspace_id', 'text', (c) =>
            c.notNull().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('path', pathColumn, (c) => c.notNull())
          .addColumn('seq', 'bigint', (c) => c.notNull())
          .addColumn('line_start', 'integer', (c) => c.notNull())
          .addColumn('line_end', 'integer', (c) => c.notNull())
          .addColumn('text', 'text', (c) => c.notNull())
          .addColumn('vector', binaryType)
          .execute();
        await db.schema
          .createIndex('passages_by_path')
          .on('passages')
          .columns(['workspace_id', 'path'])
          .execute();
        // Covers the workspace check of every full-text match without reading passage rows.
        await db.schema
          .createIndex('passages_by_id')
          .on('passages')
          .columns(['id', 'workspace_id'])
          .execute();
        await db.schema
          .createTable('search_state')
          .addColumn('workspace_id', 'text', (c) =>
            c.primaryKey().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('indexed_seq', 'bigint', (c) => c.notNull())
          .addColumn('rebuild_seq', 'bigint')
          .addColumn('rebuild_after', pathColumn)
          .addColumn('vector_error', 'text')
          .execute();
        for (const statement of dialect.fullText.schema()) await sql.raw(statement).execute(db);
      },
    },
    '0005_key_parent': {
      async up(db: Kysely<unknown>) {
        // Keys written before this migration keep a null parent: nothing recorded who minted
        // them. Deleting a key deletes what it minted, never turns a child into a root key.
        await db.schema
          .alterTable('api_keys')
          .addColumn('parent_id', 'text', (c) => c.references('api_keys.id').onDelete('cascade'))
          .execute();
        await db.schema
          .createIndex('api_keys_by_parent')
          .on('api_keys')
          .column('parent_id')
          .execute();
      },
    },
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

/**
 * Brings the database to the newest schema; throws INTERNAL naming the failed migration, or
 * saying the schema is newer than this build (a migration ran that it does not know): an older
 * Satchel never writes to a schema it does not understand.
 */
export async function migrateToLatest(db: Kysely<unknown>, dialect: SqlDialectInfo): Promise<void> {
  let { error, results } = await (await migrator(db, dialect)).migrateToLatest();
  // Kysely looks at the catalog of every schema; PostgreSQL can fail that lookup while another
  // schema of the database is being dropped. Nothing ran: try again.
  for (let retry = 0; retry < 3 && /cache lookup failed/.test(String(error)); retry++) {
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
