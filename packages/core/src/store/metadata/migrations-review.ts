/**
 * Migration 0014: review comments and share links (issue 17, items 4 and 6). Kept beside
 * migrations.ts, which lists it, so the tables of one feature are created in one place.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';

export function reviewMigration(dialect: SqlDialectInfo): Migration {
  const { textCollation } = dialect;
  const pathColumn = textCollation ? sql`text collate ${sql.raw(textCollation)}` : sql`text`;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('comments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('thread_id', 'text', (c) => c.notNull())
        .addColumn('parent_id', 'text')
        .addColumn('path', pathColumn, (c) => c.notNull())
        .addColumn('version', 'bigint')
        .addColumn('start_line', 'integer')
        .addColumn('end_line', 'integer')
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('author', 'text', (c) => c.notNull())
        .addColumn('session', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('resolved_at', 'bigint')
        .addColumn('resolved_by', 'text')
        .execute();
      // Threads of a workspace or of one path, newest first; the replies of a thread in order.
      await db.schema
        .createIndex('comments_by_workspace')
        .on('comments')
        .columns(['workspace_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('comments_by_path')
        .on('comments')
        .columns(['workspace_id', 'path', 'created_at'])
        .execute();
      await db.schema
        .createIndex('comments_by_thread')
        .on('comments')
        .columns(['thread_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('share_links')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('path', pathColumn, (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('max_downloads', 'integer')
        .addColumn('downloads', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at', 'bigint')
        .addColumn('revoked_by', 'text')
        .execute();
      await db.schema
        .createIndex('share_links_by_workspace')
        .on('share_links')
        .columns(['workspace_id', 'created_at', 'id'])
        .execute();
    },
  };
}
