/** SQL for principals, API keys, memberships and ownership transfers (portable Kysely). */

import type { Role } from '@satchel/client/schemas/access.js';
import { type Kysely, type Selectable, sql } from 'kysely';
import type {
  ApiKeysTable,
  Database,
  MembersTable,
  PrincipalsTable,
  TransfersTable,
} from './tables.js';

export type PrincipalRow = Selectable<PrincipalsTable>;
export type KeyRow = Selectable<ApiKeysTable>;
export type MemberRow = Selectable<MembersTable>;
export type TransferRow = Selectable<TransfersTable>;

export function insertPrincipal(db: Kysely<Database>, row: PrincipalRow): Promise<unknown> {
  return db.insertInto('principals').values(row).execute();
}

export function principalById(db: Kysely<Database>, id: string): Promise<PrincipalRow | undefined> {
  return db.selectFrom('principals').selectAll().where('id', '=', id).executeTakeFirst();
}

export function principalByName(
  db: Kysely<Database>,
  name: string,
): Promise<PrincipalRow | undefined> {
  return db.selectFrom('principals').selectAll().where('name', '=', name).executeTakeFirst();
}

export function listPrincipals(
  db: Kysely<Database>,
  afterName: string | null,
  limit: number,
): Promise<PrincipalRow[]> {
  let q = db.selectFrom('principals').selectAll().orderBy('name').limit(limit);
  if (afterName !== null) q = q.where('name', '>', afterName);
  return q.execute();
}

export async function countPrincipals(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('principals')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertKey(db: Kysely<Database>, row: KeyRow): Promise<unknown> {
  return db.insertInto('api_keys').values(row).execute();
}

export function keyById(db: Kysely<Database>, id: string): Promise<KeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Keys of one principal, or of everyone when `principalId` is null; newest first. */
export function listKeys(db: Kysely<Database>, principalId: string | null): Promise<KeyRow[]> {
  let q = db.selectFrom('api_keys').selectAll().orderBy('created_at', 'desc').limit(1000);
  if (principalId !== null) q = q.where('principal_id', '=', principalId);
  return q.execute();
}

/**
 * How many generations a key may sit below a root key. Bounds every walk along `parent_id`, so
 * authenticating a key costs one query of at most this many + 1 rows.
 */
export const MAX_KEY_DEPTH = 16;

/** A key with its distance from the key a chain query started at (0 = that key itself). */
export type KeyChainRow = KeyRow & { depth: number };

/**
 * The key `id` (depth 0) and the keys it was minted from, nearest first, in one recursive query
 * of at most MAX_KEY_DEPTH + 1 rows. Empty when there is no such key. When the last row still
 * has a `parent_id`, the chain is longer than the bound (or its parent row is gone).
 */
export function keyChain(db: Kysely<Database>, id: string): Promise<KeyChainRow[]> {
  return db
    .withRecursive('chain(id, parent_id, depth)', (qb) =>
      qb
        .selectFrom('api_keys')
        .select(['id', 'parent_id', sql<number>`0`.as('depth')])
        .where('id', '=', id)
        .unionAll((qb) =>
          qb
            .selectFrom('api_keys')
            .innerJoin('chain', 'chain.parent_id', 'api_keys.id')
            .select(['api_keys.id', 'api_keys.parent_id', sql<number>`chain.depth + 1`.as('depth')])
            .where('chain.depth', '<', MAX_KEY_DEPTH),
        ),
    )
    .selectFrom('chain')
    .innerJoin('api_keys', 'api_keys.id', 'chain.id')
    .selectAll('api_keys')
    .select('chain.depth')
    .orderBy('chain.depth')
    .execute();
}

/**
 * Revokes the key `id` and every key minted from it, transitively (MAX_KEY_DEPTH generations
 * down, which is as deep as keys are minted), in one statement. Keys already revoked keep the
 * time they were revoked.
 */
export function revokeKey(db: Kysely<Database>, id: string, at: number): Promise<unknown> {
  return db
    .withRecursive('minted(id, depth)', (qb) =>
      qb
        .selectFrom('api_keys')
        .select(['id', sql<number>`0`.as('depth')])
        .where('id', '=', id)
        .unionAll((qb) =>
          qb
            .selectFrom('api_keys')
            .innerJoin('minted', 'minted.id', 'api_keys.parent_id')
            .select(['api_keys.id', sql<number>`minted.depth + 1`.as('depth')])
            .where('minted.depth', '<', MAX_KEY_DEPTH),
        ),
    )
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', 'in', (qb) => qb.selectFrom('minted').select('minted.id'))
    .where('revoked_at', 'is', null)
    .execute();
}

export async function roleOf(
  db: Kysely<Database>,
  workspaceId: string,
  principalId: string,
): Promise<Role | null> {
  const row = await db
    .selectFrom('members')
    .select('role')
    .where('workspace_id', '=', workspaceId)
    .where('principal_id', '=', principalId)
    .executeTakeFirst();
  return row?.role ?? null;
}

export function putMember(db: Kysely<Database>, row: MemberRow): Promise<unknown> {
  return db
    .insertInto('members')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'principal_id']).doUpdateSet({ role: row.role }),
    )
    .execute();
}

export function deleteMember(
  db: Kysely<Database>,
  workspaceId: string,
  principalId: string,
): Promise<unknown> {
  return db
    .deleteFrom('members')
    .where('workspace_id', '=', workspaceId)
    .where('principal_id', '=', principalId)
    .execute();
}

export function listMembers(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<(MemberRow & Pick<PrincipalRow, 'name' | 'kind'>)[]> {
  return db
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
}

/** Names of the workspaces a principal is a member of (for listing what it can see). */
export async function memberWorkspaceIds(
  db: Kysely<Database>,
  principalId: string,
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('members')
    .select('workspace_id')
    .where('principal_id', '=', principalId)
    .execute();
  return new Set(rows.map((r) => r.workspace_id));
}

export function insertTransfer(db: Kysely<Database>, row: TransferRow): Promise<unknown> {
  return db.insertInto('transfers').values(row).execute();
}

export function transferByCodeHash(
  db: Kysely<Database>,
  codeHash: string,
): Promise<TransferRow | undefined> {
  return db
    .selectFrom('transfers')
    .selectAll()
    .where('code_hash', '=', codeHash)
    .executeTakeFirst();
}

export function transferById(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
): Promise<TransferRow | undefined> {
  return db
    .selectFrom('transfers')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Offers neither accepted nor cancelled nor expired at `now`. */
export function openTransfers(
  db: Kysely<Database>,
  workspaceId: string,
  now: number,
): Promise<TransferRow[]> {
  return db
    .selectFrom('transfers')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('accepted_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at')
    .execute();
}

export function closeTransfer(
  db: Kysely<Database>,
  id: string,
  change: { accepted_at: number; accepted_by: string } | { cancelled_at: number },
): Promise<unknown> {
  return db.updateTable('transfers').set(change).where('id', '=', id).execute();
}
