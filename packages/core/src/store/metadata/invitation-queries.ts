/** SQL for pending invitations to join a workspace (portable Kysely). */
import type { Kysely, Selectable } from 'kysely';
import type { InvitationRecord, InvitationView } from './records.js';
import type { Database, InvitationsTable } from './tables.js';

type ViewRow = Selectable<InvitationsTable> & { workspace_name: string; inviter: string | null };

function toInvitation(row: ViewRow): InvitationView {
  return {
    workspaceName: row.workspace_name,
    inviterName: row.inviter ?? row.invited_by,
    id: row.id,
    workspaceId: row.workspace_id,
    principalName: row.principal_name,
    principalId: row.principal_id,
    role: row.role,
    invitedBy: row.invited_by,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

/** The invitation area of the metadata store (`store.invitations`, `tx.invitations`). */
export class InvitationQueries {
  constructor(private readonly db: Kysely<Database>) {}

  /** Invitations with their workspace's name and their inviter's (the reads' common part). */
  private views() {
    return this.db
      .selectFrom('invitations')
      .innerJoin('workspaces', 'workspaces.id', 'invitations.workspace_id')
      .leftJoin('principals', 'principals.id', 'invitations.invited_by')
      .selectAll('invitations')
      .select(['workspaces.name as workspace_name', 'principals.name as inviter']);
  }

  /**
   * Records an invitation; one for the same workspace and name is replaced (new id, role,
   * inviter and expiry), so inviting again renews it.
   */
  async put(invitation: InvitationRecord): Promise<void> {
    await this.deleteFor(invitation.workspaceId, invitation.principalName);
    await this.db
      .insertInto('invitations')
      .values({
        id: invitation.id,
        workspace_id: invitation.workspaceId,
        principal_name: invitation.principalName,
        principal_id: invitation.principalId,
        role: invitation.role,
        invited_by: invitation.invitedBy,
        created_at: invitation.createdAt,
        expires_at: invitation.expiresAt,
      })
      .execute();
  }

  async byId(id: string): Promise<InvitationView | undefined> {
    const row = await this.views().where('invitations.id', '=', id).executeTakeFirst();
    return row && toInvitation(row);
  }

  /** Unexpired invitations addressed to a principal, oldest first. */
  async pendingForPrincipal(principalId: string, now: number): Promise<InvitationView[]> {
    const rows = await this.views()
      .where('invitations.principal_id', '=', principalId)
      .where('invitations.expires_at', '>', now)
      .orderBy('invitations.created_at')
      .orderBy('invitations.id')
      .execute();
    return rows.map(toInvitation);
  }

  /** Unexpired invitations to a workspace, by invited name. */
  async pendingInWorkspace(workspaceId: string, now: number): Promise<InvitationView[]> {
    const rows = await this.views()
      .where('invitations.workspace_id', '=', workspaceId)
      .where('invitations.expires_at', '>', now)
      .orderBy('invitations.principal_name')
      .execute();
    return rows.map(toInvitation);
  }

  /** Forgets a workspace's invitations that expired by `now`. */
  async deleteExpired(workspaceId: string, now: number): Promise<void> {
    await this.db
      .deleteFrom('invitations')
      .where('invitations.workspace_id', '=', workspaceId)
      .where('invitations.expires_at', '<=', now)
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('invitations').where('id', '=', id).execute();
  }

  /** Removes the invitation of `name` to a workspace; whether there was one. */
  async deleteFor(workspaceId: string, name: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('invitations')
      .where('invitations.workspace_id', '=', workspaceId)
      .where('invitations.principal_name', '=', name)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
