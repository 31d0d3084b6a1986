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
