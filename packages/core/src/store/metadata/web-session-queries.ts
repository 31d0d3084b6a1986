/** SQL for the web app's sign-in links and browser sessions (portable Kysely). */
import type { Kysely, Selectable } from 'kysely';
import type { LoginLinkRecord, WebSessionRecord } from './records.js';
import type { Database } from './tables.js';
import type { WebSessionsTable } from './tables-people.js';

function toSession(row: Selectable<WebSessionsTable>): WebSessionRecord {
  return {
    id: row.id,
    secretHash: row.secret_hash,
    principalId: row.principal_id,
    userAgent: row.user_agent,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

/** The web-session area of the metadata store (`store.webSessions`, `tx.webSessions`). */
export class WebSessionQueries {
  constructor(private readonly db: Kysely<Database>) {}

  async insertLink(link: LoginLinkRecord): Promise<void> {
    await this.db
      .insertInto('web_login_links')
      .values({
        token_hash: link.tokenHash,
        principal_id: link.principalId,
        created_by: link.createdBy,
        created_at: link.createdAt,
        expires_at: link.expiresAt,
      })
      .execute();
  }

  /**
   * Uses up the link with this token hash: deletes it and returns it if it was there and
   * unexpired at `now`. Of two concurrent calls for one link, at most one gets it back (the
   * delete that removed the row); an expired link is deleted and not returned.
   */
  async takeLink(tokenHash: string, now: number): Promise<LoginLinkRecord | undefined> {
    const row = await this.db
      .selectFrom('web_login_links')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const deleted = await this.db
      .deleteFrom('web_login_links')
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (Number(deleted.numDeletedRows) !== 1 || Number(row.expires_at) <= now) return undefined;
    return {
      tokenHash: row.token_hash,
      principalId: row.principal_id,
      createdBy: row.created_by,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
    };
  }

  /** Forgets links and sessions that expired by `now` (revoked sessions go when they expire). */
  async deleteExpired(now: number): Promise<void> {
    await this.db.deleteFrom('web_login_links').where('expires_at', '<=', now).execute();
    await this.db.deleteFrom('web_sessions').where('expires_at', '<=', now).execute();
  }

  async insertSession(session: WebSessionRecord): Promise<void> {
    await this.db
      .insertInto('web_sessions')
      .values({
        id: session.id,
        secret_hash: session.secretHash,
        principal_id: session.principalId,
        user_agent: session.userAgent,
        created_at: session.createdAt,
        last_seen_at: session.lastSeenAt,
        expires_at: session.expiresAt,
        revoked_at: session.revokedAt,
      })
      .execute();
  }

  async sessionById(id: string): Promise<WebSessionRecord | undefined> {
    const row = await this.db
      .selectFrom('web_sessions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toSession(row);
  }

  /** A principal's sessions live at `now` (not revoked, not expired), newest first. */
  async liveSessions(principalId: string, now: number): Promise<WebSessionRecord[]> {
    const rows = await this.db
      .selectFrom('web_sessions')
      .selectAll()
      .where('principal_id', '=', principalId)
      .where('expires_at', '>', now)
      .where('revoked_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map(toSession);
  }

  async touchSession(id: string, at: number): Promise<void> {
    await this.db
      .updateTable('web_sessions')
      .set({ last_seen_at: at })
      .where('id', '=', id)
      .execute();
  }

  /** Marks a session revoked (once: a revoked session keeps its first revocation time). */
  async revokeSession(id: string, at: number): Promise<void> {
    await this.db
      .updateTable('web_sessions')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }
}
