/**
 * SQL for content named by its hash (portable Kysely, compiled once: prepared.ts): whether a
 * workspace holds it, for uploads by hash and the "what do you already have" negotiation
 * (engine/readable-content.ts), and whether the registry has a row for it. A transfer asks these
 * for every file it names by hash, so each is one statement, and only the answer for content
 * uploaded as its head reads the row's inline bytes.
 */
import type { Kysely } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import { toBlob } from './file-tree-rows.js';
import { prepared, preparedIn } from './prepared.js';
import type { BlobRecord } from './records.js';
import type { Database } from './tables.js';

/** Workspace ids bound in one `in (…)` list (SQLite allows 32,766 parameters, PostgreSQL more). */
const IDS_PER_QUERY = 500;

/** The registry's rows of `hash`, when a version in one of `ids` refers to it. */
function referencedIn(db: Kysely<Database>, ids: readonly unknown[], hash: string) {
  return db
    .selectFrom('blobs')
    .where('hash', '=', hash)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('versions')
          .select('versions.seq')
          .whereRef('versions.hash', '=', 'blobs.hash')
          .where('versions.workspace_id', 'in', ids as string[]),
      ),
    );
}

/** The registry row of `hash` when a version in one of `ids` refers to it. */
const READABLE = preparedIn((db: Kysely<Database>, ids: readonly unknown[], hash: string) =>
  referencedIn(db, ids, hash).selectAll(),
);

/** As READABLE, the hash alone: the row's inline bytes are not read. */
const HELD = preparedIn((db: Kysely<Database>, ids: readonly unknown[], hash: string) =>
  referencedIn(db, ids, hash).select('hash'),
);

const REGISTERED = prepared((db: Kysely<Database>, hash: string) =>
  db.selectFrom('blobs').select('hash').where('hash', '=', hash),
);

/** The content-by-hash area of the metadata store (`store.content`, `tx.content`). */
export class ContentQueries {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialectInfo,
  ) {}

  /**
   * The registry row (inline bytes included) of content `hash` when a version (current,
   * historical or deleted) in one of `workspaceIds` refers to it, asked in that order in lists of
   * 500: one statement for up to 500 workspaces.
   */
  async readable(workspaceIds: readonly string[], hash: string): Promise<BlobRecord | undefined> {
    for (let i = 0; i < workspaceIds.length; i += IDS_PER_QUERY) {
      const ids = workspaceIds.slice(i, i + IDS_PER_QUERY);
      const [row] = await READABLE(this.db, this.dialect, ids, hash);
      if (row) return toBlob(row);
    }
    return undefined;
  }

  /** Whether `readable` would find the content, without reading its bytes. */
  async held(workspaceIds: readonly string[], hash: string): Promise<boolean> {
    for (let i = 0; i < workspaceIds.length; i += IDS_PER_QUERY) {
      const ids = workspaceIds.slice(i, i + IDS_PER_QUERY);
      if ((await HELD(this.db, this.dialect, ids, hash)).length > 0) return true;
    }
    return false;
  }

  /** Whether the registry has a row for `hash` (its bytes are not read). */
  async registered(hash: string): Promise<boolean> {
    return (await REGISTERED(this.db, this.dialect, hash)).length > 0;
  }
}
