/**
 * The first schema (0001–0005): the file tree, access, webhooks, search, key lineage. Later
 * migrations are in migrations.ts; both are written with Kysely's schema builder, portable to
 * every dialect.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';

/** Migrations 0001–0005, by name. */
export function initialMigrations(dialect: SqlDialectInfo): Record<string, Migration> {
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
  };
}
