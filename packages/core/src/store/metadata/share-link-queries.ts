/** SQL for share links (portable Kysely; engine/share-links.ts decides). */
import type { Kysely, Selectable } from 'kysely';
import type { ShareLinkRecord } from './records.js';
import type { Database } from './tables.js';
import type { ShareLinksTable } from './tables-people.js';

function toShareLink(row: Selectable<ShareLinksTable>): ShareLinkRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    path: row.path,
    kind: row.kind,
    tokenHash: row.token_hash,
    passwordHash: row.password_hash,
    expiresAt: Number(row.expires_at),
    maxDownloads: row.max_downloads === null ? null : Number(row.max_downloads),
    downloads: Number(row.downloads),
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    revokedBy: row.revoked_by,
  };
}

/** Share links (`store.shareLinks`, `tx.shareLinks`). */
export class ShareLinkQueries {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(link: ShareLinkRecord): Promise<void> {
    await this.db
      .insertInto('share_links')
      .values({
        id: link.id,
        workspace_id: link.workspaceId,
        path: link.path,
        kind: link.kind,
        token_hash: link.tokenHash,
        password_hash: link.passwordHash,
        expires_at: link.expiresAt,
        max_downloads: link.maxDownloads,
        downloads: link.downloads,
        created_by: link.createdBy,
        created_at: link.createdAt,
        revoked_at: link.revokedAt,
        revoked_by: link.revokedBy,
      })
      .execute();
  }

  /** A link by id, in any workspace (a token names only its link). */
  async byId(id: string): Promise<ShareLinkRecord | undefined> {
    const row = await this.db
      .selectFrom('share_links')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toShareLink(row);
  }

  /** A link by id with its workspace's name (a token names only its link). */
  async withWorkspace(
    id: string,
  ): Promise<{ link: ShareLinkRecord; workspace: string } | undefined> {
    const row = await this.db
      .selectFrom('share_links as l')
      .innerJoin('workspaces as w', 'w.id', 'l.workspace_id')
      .selectAll('l')
      .select('w.name as workspace_name')
      .where('l.id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    const { workspace_name, ...link } = row;
    return { link: toShareLink(link), workspace: workspace_name };
  }

  /** A workspace's links, newest first, after `before` when given, at most `limit`. */
  async list(
    workspaceId: string,
    before: { createdAt: number; id: string } | null,
    limit: number,
  ): Promise<ShareLinkRecord[]> {
    let q = this.db
      .selectFrom('share_links')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit);
    if (before !== null) {
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '<', before.createdAt),
          eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
        ]),
      );
    }
    return (await q.execute()).map(toShareLink);
  }

  /** Revokes a live link; false when it was revoked already. */
  async revoke(id: string, at: number, by: string): Promise<boolean> {
    const result = await this.db
      .updateTable('share_links')
      .set({ revoked_at: at, revoked_by: by })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Counts one download if the link still allows one (not revoked, under its limit): one
   * statement, so two concurrent downloads never both take the last one. False otherwise.
   */
  async countDownload(id: string): Promise<boolean> {
    const result = await this.db
      .updateTable('share_links')
      .set((eb) => ({ downloads: eb('downloads', '+', 1) }))
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .where((eb) =>
        eb.or([eb('max_downloads', 'is', null), eb('downloads', '<', eb.ref('max_downloads'))]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
