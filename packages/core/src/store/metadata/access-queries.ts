/** SQL for principals and API keys, with their key lineage (portable Kysely). */
import { type Kysely, type Selectable, sql } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import { prepared } from './prepared.js';
import type { KeyChainLink, KeyRecord, PrincipalRecord } from './records.js';
import type { ApiKeysTable, Database, PrincipalsTable } from './tables.js';

/**
 * How many generations a key may sit below a root key. Bounds every walk along `parentId`, so
 * authenticating a key costs one query of at most this many + 1 rows.
 */
export const MAX_KEY_DEPTH = 16;

function toPrincipal(row: Selectable<PrincipalsTable>): PrincipalRecord {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    admin: Number(row.admin) === 1,
    createdAt: Number(row.created_at),
  };
}

function parseList(json: string | null): string[] | null {
  return json === null ? null : (JSON.parse(json) as string[]);
}

const at = (ms: number | null) => (ms === null ? null : Number(ms));

function toKey(row: Selectable<ApiKeysTable>): KeyRecord {
  return {
    id: row.id,
    principalId: row.principal_id,
    parentId: row.parent_id,
    secretHash: row.secret_hash,
    label: row.label,
    workspaces: parseList(row.workspaces),
    roleCeiling: row.role_ceiling,
    pathPrefixes: parseList(row.path_prefixes),
    readOnly: Number(row.read_only) === 1,
    expiresAt: at(row.expires_at),
    revokedAt: at(row.revoked_at),
    createdAt: Number(row.created_at),
  };
}

/** The recursive query behind `keyChain` and `credentials`. */
function chainOf(db: Kysely<Database>, id: string) {
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
    .orderBy('chain.depth');
}

/** Authentication's one query (every request runs it): compiled once. */
const CREDENTIALS = prepared((db: Kysely<Database>, id: string) =>
  chainOf(db, id)
    .leftJoin('principals as p', 'p.id', 'api_keys.principal_id')
    .select([
      'p.id as p_id',
      'p.name as p_name',
      'p.kind as p_kind',
      'p.admin as p_admin',
      'p.created_at as p_created_at',
    ]),
);

/** The principals and keys area of the metadata store (`store.access`, `tx.access`). */
export class AccessQueries {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialectInfo,
  ) {}

  async insertPrincipal(principal: PrincipalRecord): Promise<void> {
    await this.db
      .insertInto('principals')
      .values({
        id: principal.id,
        name: principal.name,
        kind: principal.kind,
        admin: principal.admin ? 1 : 0,
        created_at: principal.createdAt,
      })
      .execute();
  }

  async principalById(id: string): Promise<PrincipalRecord | undefined> {
    const row = await this.db
      .selectFrom('principals')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toPrincipal(row);
  }

  async principalByName(name: string): Promise<PrincipalRecord | undefined> {
    const row = await this.db
      .selectFrom('principals')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toPrincipal(row);
  }

  /** Principals by name, after `afterName` when given, at most `limit`. */
  async principals(afterName: string | null, limit: number): Promise<PrincipalRecord[]> {
    let q = this.db.selectFrom('principals').selectAll().orderBy('name').limit(limit);
    if (afterName !== null) q = q.where('name', '>', afterName);
    return (await q.execute()).map(toPrincipal);
  }

  async countPrincipals(): Promise<number> {
    const row = await this.db
      .selectFrom('principals')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insertKey(key: KeyRecord): Promise<void> {
    await this.db
      .insertInto('api_keys')
      .values({
        id: key.id,
        principal_id: key.principalId,
        parent_id: key.parentId,
        secret_hash: key.secretHash,
        label: key.label,
        workspaces: key.workspaces === null ? null : JSON.stringify(key.workspaces),
        role_ceiling: key.roleCeiling,
        path_prefixes: key.pathPrefixes === null ? null : JSON.stringify(key.pathPrefixes),
        read_only: key.readOnly ? 1 : 0,
        expires_at: key.expiresAt,
        revoked_at: key.revokedAt,
        created_at: key.createdAt,
      })
      .execute();
  }

  async keyById(id: string): Promise<KeyRecord | undefined> {
    const row = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toKey(row);
  }

  /** Keys of one principal, or of everyone when `principalId` is null; newest first. */
  async keys(principalId: string | null): Promise<KeyRecord[]> {
    let q = this.db.selectFrom('api_keys').selectAll().orderBy('created_at', 'desc').limit(1000);
    if (principalId !== null) q = q.where('principal_id', '=', principalId);
    return (await q.execute()).map(toKey);
  }

  /**
   * The key `id` (depth 0) and the keys it was minted from, nearest first, in one recursive
   * query of at most MAX_KEY_DEPTH + 1 rows. Empty when there is no such key. When the last
   * link still has a `parentId`, the chain is longer than the bound (or its parent row is gone).
   */
  async keyChain(id: string): Promise<KeyChainLink[]> {
    const rows = await chainOf(this.db, id).execute();
    return rows.map((row) => ({ ...toKey(row), depth: Number(row.depth) }));
  }

  /**
   * What authenticating with key `id` needs, in one round trip: its chain (as `keyChain`) and
   * the principal it belongs to (undefined if gone or if there is no such key).
   */
  async credentials(
    id: string,
  ): Promise<{ chain: KeyChainLink[]; principal: PrincipalRecord | undefined }> {
    const rows = await CREDENTIALS(this.db, this.dialect, id);
    const chain = rows.map((row) => ({ ...toKey(row), depth: Number(row.depth) }));
    const leaf = rows[0];
    const principal =
      leaf?.p_id == null
        ? undefined
        : toPrincipal({
            id: leaf.p_id,
            name: leaf.p_name ?? '',
            kind: leaf.p_kind ?? 'agent',
            admin: Number(leaf.p_admin),
            created_at: Number(leaf.p_created_at),
          });
    return { chain, principal };
  }

  /**
   * Revokes the key `id` and every key minted from it, transitively (MAX_KEY_DEPTH generations
   * down, which is as deep as keys are minted), in one statement. Keys already revoked keep the
   * time they were revoked.
   */
  async revokeKey(id: string, at: number): Promise<void> {
    await this.db
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
}
