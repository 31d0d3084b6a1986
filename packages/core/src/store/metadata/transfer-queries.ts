/** SQL for offers to transfer a workspace's ownership (portable Kysely). */
import type { Kysely, Selectable } from 'kysely';
import type { TransferRecord } from './records.js';
import type { Database, TransfersTable } from './tables.js';

const at = (ms: number | null) => (ms === null ? null : Number(ms));

function toTransfer(row: Selectable<TransfersTable>): TransferRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    codeHash: row.code_hash,
    offeredBy: row.offered_by,
    toPrincipal: row.to_principal,
    previousOwnerRole: row.previous_owner_role,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    acceptedAt: at(row.accepted_at),
    acceptedBy: row.accepted_by,
    cancelledAt: at(row.cancelled_at),
  };
}

/** The transfer area of the metadata store (`store.transfers`, `tx.transfers`). */
export class TransferQueries {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(transfer: TransferRecord): Promise<void> {
    await this.db
      .insertInto('transfers')
      .values({
        id: transfer.id,
        workspace_id: transfer.workspaceId,
        code_hash: transfer.codeHash,
        offered_by: transfer.offeredBy,
        to_principal: transfer.toPrincipal,
        previous_owner_role: transfer.previousOwnerRole,
        created_at: transfer.createdAt,
        expires_at: transfer.expiresAt,
        accepted_at: transfer.acceptedAt,
        accepted_by: transfer.acceptedBy,
        cancelled_at: transfer.cancelledAt,
      })
      .execute();
  }

  async byCodeHash(codeHash: string): Promise<TransferRecord | undefined> {
    const row = await this.db
      .selectFrom('transfers')
      .selectAll()
      .where('code_hash', '=', codeHash)
      .executeTakeFirst();
    return row && toTransfer(row);
  }

  async byId(workspaceId: string, id: string): Promise<TransferRecord | undefined> {
    const row = await this.db
      .selectFrom('transfers')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toTransfer(row);
  }

  /** Offers neither accepted nor cancelled nor expired at `now`, oldest first. */
  async open(workspaceId: string, now: number): Promise<TransferRecord[]> {
    const rows = await this.db
      .selectFrom('transfers')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('accepted_at', 'is', null)
      .where('cancelled_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('created_at')
      .execute();
    return rows.map(toTransfer);
  }

  /** Ends an offer: accepted (by whom) or cancelled. */
  async close(
    id: string,
    change: { acceptedAt: number; acceptedBy: string } | { cancelledAt: number },
  ): Promise<void> {
    const columns =
      'cancelledAt' in change
        ? { cancelled_at: change.cancelledAt }
        : { accepted_at: change.acceptedAt, accepted_by: change.acceptedBy };
    await this.db.updateTable('transfers').set(columns).where('id', '=', id).execute();
  }
}
