/** SQL for workspace memberships (portable Kysely). */

import type { Role } from '@satchel/client/schemas/access.js';
import type { Kysely } from 'kysely';
import type { MemberRecord, PrincipalRecord } from './records.js';
import type { Database } from './tables.js';

/** The membership area of the metadata store (`store.members`, `tx.members`). */
export class MemberQueries {
  constructor(private readonly db: Kysely<Database>) {}

  /** The role of a principal in a workspace; null when it is no member. */
  async roleOf(workspaceId: string, principalId: string): Promise<Role | null> {
    const row = await this.db
      .selectFrom('members')
      .select('role')
      .where('workspace_id', '=', workspaceId)
      .where('principal_id', '=', principalId)
      .executeTakeFirst();
    return row?.role ?? null;
  }

  /** Adds a member, or changes the role of one (keeping when it joined). */
  async put(member: MemberRecord): Promise<void> {
    await this.db
      .insertInto('members')
      .values({
        workspace_id: member.workspaceId,
        principal_id: member.principalId,
        role: member.role,
        created_at: member.createdAt,
      })
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'principal_id']).doUpdateSet({ role: member.role }),
      )
      .execute();
  }

  async delete(workspaceId: string, principalId: string): Promise<void> {
    await this.db
      .deleteFrom('members')
      .where('workspace_id', '=', workspaceId)
      .where('principal_id', '=', principalId)
      .execute();
  }

  /** The members of a workspace with their principal's name and kind, by name. */
  async list(
    workspaceId: string,
  ): Promise<(MemberRecord & Pick<PrincipalRecord, 'name' | 'kind'>)[]> {
    const rows = await this.db
      .selectFrom('members')
      .innerJoin('principals', 'principals.id', 'members.principal_id')
      .select([
        'members.workspace_id',
        'members.principal_id',
        'members.role',
        'members.created_at',
        'principals.name',
        'principals.kind',
      ])
      .where('members.workspace_id', '=', workspaceId)
      .orderBy('principals.name')
      .execute();
    return rows.map((row) => ({
      workspaceId: row.workspace_id,
      principalId: row.principal_id,
      role: row.role,
      createdAt: Number(row.created_at),
      name: row.name,
      kind: row.kind,
    }));
  }

  /** Ids of the workspaces a principal is a member of (for listing what it can see). */
  async workspaceIds(principalId: string): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('members')
      .select('workspace_id')
      .where('principal_id', '=', principalId)
      .execute();
    return new Set(rows.map((r) => r.workspace_id));
  }
}
