/**
 * Schema migrations, in code, written with Kysely's schema builder so that they run on every
 * dialect; the few type differences come from `SqlDialectInfo`.
 */
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { SatchelError } from '../../errors.js';
import type { SqlDialectInfo } from './dialect.js';

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
  };
}

/** Brings the database to the newest schema; throws INTERNAL naming the failed migration. */
export async function migrateToLatest(db: Kysely<unknown>, dialect: SqlDialectInfo): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
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
