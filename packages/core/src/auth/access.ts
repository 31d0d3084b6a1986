/** Principals, keys and memberships: bootstrap of the admin, authentication, key management. */
import { randomUUID } from 'node:crypto';
import { open, rename } from 'node:fs/promises';
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizePath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type CreatedKey,
  type CreateKey,
  CreateKeySchema,
  type CreatePrincipal,
  CreatePrincipalSchema,
  type KeyInfo,
  type Page,
  type PageOptions,
  PageOptionsSchema,
  type Principal,
  type WhoAmI,
} from '@satchel/client/schemas/index.js';
import { type Actor, type KeyScope, ROLE_RANK } from '../kernel/actor.js';
import type { EngineContext } from '../kernel/context.js';
import { decodeCursor, encodeCursor } from '../kernel/cursors.js';
import { iso } from '../kernel/records.js';
import type { KeyRow, PrincipalRow } from '../store/metadata/access-queries.js';
import * as access from '../store/metadata/access-queries.js';
import type { MetadataQueries, MetadataStore } from '../store/metadata/metadata-store.js';
import { checkLineage, checkMintDepth, childExpiry, unauthenticated } from './key-lineage.js';
import { generateKey, parseKey, secretMatches } from './keys.js';

export const ADMIN_NAME = 'admin';

function parseList(json: string | null): string[] | null {
  return json === null ? null : (JSON.parse(json) as string[]);
}

function scopeOf(key: KeyRow): KeyScope {
  return {
    workspaces: parseList(key.workspaces),
    roleCeiling: key.role_ceiling,
    pathPrefixes: parseList(key.path_prefixes),
    readOnly: key.read_only === 1,
  };
}

export function actorOf(principal: PrincipalRow, key: KeyRow | null): Actor {
  return {
    principalId: principal.id,
    name: principal.name,
    kind: principal.kind,
    admin: principal.admin === 1,
    keyId: key?.id ?? null,
    scope: key
      ? scopeOf(key)
      : { workspaces: null, roleCeiling: null, pathPrefixes: null, readOnly: false },
  };
}

function keyInfo(key: KeyRow, principal: string): KeyInfo {
  const scope = scopeOf(key);
  return {
    id: key.id,
    principal,
    label: key.label,
    workspaces: scope.workspaces ? [...scope.workspaces] : null,
    role: scope.roleCeiling,
    pathPrefixes: scope.pathPrefixes ? [...scope.pathPrefixes] : null,
    readOnly: scope.readOnly,
    createdAt: iso(Number(key.created_at)),
    expiresAt: key.expires_at === null ? null : iso(Number(key.expires_at)),
    revokedAt: key.revoked_at === null ? null : iso(Number(key.revoked_at)),
  };
}

function principalOut(row: PrincipalRow): Principal {
  return {
    name: row.name,
    kind: row.kind,
    admin: row.admin === 1,
    createdAt: iso(Number(row.created_at)),
  };
}

/** Writes a secret file atomically with mode 0600, durable before it is renamed into place. */
async function writeSecretFile(file: string, content: string): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  const fh = await open(temp, 'w', 0o600);
  try {
    await fh.writeFile(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(temp, file);
}

/**
 * On a database without principals, creates the admin principal and its first key, writing the
 * key to `keyFile` (mode 0600) before the commit — so a crash can leave a key file whose key
 * does not exist yet (replaced at the next start), never an admin key nobody can read.
 * Returns the admin principal and, when it was just created, its key.
 */
export async function bootstrapAdmin(
  store: MetadataStore,
  keyFile: string | null,
  now: number,
): Promise<{ admin: PrincipalRow; createdKey: string | null }> {
  const existing = await access.principalByName(store.kysely, ADMIN_NAME);
  if (existing) return { admin: existing, createdKey: null };
  const admin: PrincipalRow = {
    id: randomUUID(),
    name: ADMIN_NAME,
    kind: 'user',
    admin: 1,
    created_at: now,
  };
  const key = generateKey();
  if (keyFile) await writeSecretFile(keyFile, `${key.key}\n`);
  await store.transaction(async (tx) => {
    if (await access.principalByName(tx.kysely, ADMIN_NAME)) return;
    await access.insertPrincipal(tx.kysely, admin);
    await access.insertKey(tx.kysely, {
      id: key.id,
      principal_id: admin.id,
      parent_id: null,
      secret_hash: key.secretHash,
      label: 'admin (created at first start)',
      workspaces: null,
      role_ceiling: null,
      path_prefixes: null,
      read_only: 0,
      expires_at: null,
      revoked_at: null,
      created_at: now,
    });
  });
  const created = await access.principalByName(store.kysely, ADMIN_NAME);
  if (!created) throw new SatchelError('INTERNAL', 'admin principal was not created');
  return { admin: created, createdKey: created.id === admin.id ? key.key : null };
}

/**
 * The actor a key stands for; UNAUTHENTICATED if it is malformed, unknown, revoked or expired,
 * or if a key it was minted from is. Reads the key and its ancestors in one bounded query.
 */
export async function authenticate(q: MetadataQueries, key: string, now: number): Promise<Actor> {
  const parsed = typeof key === 'string' ? parseKey(key.trim()) : null;
  if (!parsed) throw unauthenticated('not a Satchel key (they start with satchel_)');
  const chain = await access.keyChain(q.kysely, parsed.id);
  const [row] = chain;
  if (!row || !secretMatches(parsed.secret, row.secret_hash)) throw unauthenticated('unknown key');
  checkLineage(chain, now);
  const principal = await access.principalById(q.kysely, row.principal_id);
  if (!principal) throw unauthenticated('unknown key');
  return actorOf(principal, row);
}

export async function whoami(ctx: EngineContext): Promise<WhoAmI> {
  const key = ctx.actor.keyId ? await access.keyById(ctx.store.kysely, ctx.actor.keyId) : undefined;
  return {
    principal: ctx.actor.name,
    kind: ctx.actor.kind,
    admin: ctx.actor.admin,
    key: key ? keyInfo(key, ctx.actor.name) : null,
  };
}

export async function createPrincipal(
  ctx: EngineContext,
  input: CreatePrincipal,
): Promise<Principal> {
  const { name, kind } = parseOptions(CreatePrincipalSchema, input);
  return ctx.commit(async (tx) => {
    if (await access.principalByName(tx.kysely, name)) {
      throw new SatchelError('CONFLICT', `principal ${name} already exists`, {
        principal: name,
        reason: 'exists',
      });
    }
    const row: PrincipalRow = { id: randomUUID(), name, kind, admin: 0, created_at: ctx.clock() };
    await access.insertPrincipal(tx.kysely, row);
    return principalOut(row);
  });
}

export async function listPrincipals(
  ctx: EngineContext,
  options?: PageOptions,
): Promise<Page<Principal>> {
  const { cursor, limit = 100 } = parseOptions(PageOptionsSchema, options);
  const after = decodeCursor(cursor, ['a']);
  const rows = await access.listPrincipals(
    ctx.store.kysely,
    after ? String(after.a) : null,
    limit + 1,
  );
  const items = rows.slice(0, limit).map(principalOut);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeCursor({ a: last.name }) : null };
}

export async function requirePrincipal(q: MetadataQueries, name: string): Promise<PrincipalRow> {
  const row = typeof name === 'string' ? await access.principalByName(q.kysely, name) : undefined;
  if (!row) throw new SatchelError('NOT_FOUND', `principal ${name} not found`, { principal: name });
  return row;
}

/** A non-admin may only derive keys no wider than the key it is using. */
function checkNarrower(actor: Actor, wanted: KeyScope): void {
  const have = actor.scope;
  const refuse = (what: string) => {
    throw new SatchelError('FORBIDDEN', `a new key cannot be wider than yours: ${what}`, {
      reason: 'key_scope',
    });
  };
  if (have.readOnly && !wanted.readOnly) refuse('yours is read-only');
  if (
    have.workspaces &&
    (!wanted.workspaces || wanted.workspaces.some((w) => !have.workspaces?.includes(w)))
  ) {
    refuse(`yours is limited to ${have.workspaces.join(', ')}`);
  }
  if (
    have.roleCeiling &&
    (!wanted.roleCeiling || ROLE_RANK[wanted.roleCeiling] > ROLE_RANK[have.roleCeiling])
  ) {
    refuse(`yours is limited to role ${have.roleCeiling}`);
  }
  const prefixes = have.pathPrefixes;
  if (
    prefixes &&
    (!wanted.pathPrefixes ||
      wanted.pathPrefixes.some(
        (p) => !prefixes.some((h) => p === h || p.startsWith(`${h}/`) || h === '/'),
      ))
  ) {
    refuse(`yours may change only ${prefixes.join(', ')}`);
  }
}

/**
 * Mints a key. A key minted while using a key is that key's child, whoever it is for: it expires
 * no later than its parent (a later or absent `expiresInSeconds` is clamped; `info.expiresAt`
 * is the effective expiry) and is revoked with it. UNAUTHENTICATED if the key in use stopped
 * working since it authenticated; FORBIDDEN (`key_depth`) past MAX_KEY_DEPTH generations.
 */
export async function createKey(ctx: EngineContext, input: CreateKey): Promise<CreatedKey> {
  const options = parseOptions(CreateKeySchema, input);
  const principal = options.principal
    ? await requirePrincipal(ctx.store, options.principal)
    : await access.principalById(ctx.store.kysely, ctx.actor.principalId);
  if (!principal) throw new SatchelError('NOT_FOUND', 'principal not found');
  const scope: KeyScope = {
    workspaces: options.workspaces?.map((w) => validateWorkspaceName(w)) ?? null,
    roleCeiling: options.role ?? null,
    pathPrefixes: options.pathPrefixes?.map((p) => normalizePath(p)) ?? null,
    readOnly: options.readOnly ?? false,
  };
  if (!ctx.actor.admin) {
    if (principal.id !== ctx.actor.principalId) {
      throw new SatchelError(
        'FORBIDDEN',
        `${ctx.actor.name} may not create keys for ${principal.name}`,
        { reason: 'not_admin' },
      );
    }
    checkNarrower(ctx.actor, scope);
  }
  const now = ctx.clock();
  const key = generateKey();
  const requested = options.expiresInSeconds ? now + options.expiresInSeconds * 1000 : null;
  const row = await ctx.commit(async (tx) => {
    // Re-read inside the transaction, so a parent revoked since it authenticated mints nothing.
    const parentId = ctx.actor.keyId;
    const parent = parentId ? checkLineage(await access.keyChain(tx.kysely, parentId), now) : null;
    checkMintDepth(parent);
    const minted: KeyRow = {
      id: key.id,
      principal_id: principal.id,
      parent_id: parent ? parent.key.id : null,
      secret_hash: key.secretHash,
      label: options.label ?? null,
      workspaces: scope.workspaces ? JSON.stringify(scope.workspaces) : null,
      role_ceiling: scope.roleCeiling,
      path_prefixes: scope.pathPrefixes ? JSON.stringify(scope.pathPrefixes) : null,
      read_only: scope.readOnly ? 1 : 0,
      expires_at: childExpiry(requested, parent),
      revoked_at: null,
      created_at: now,
    };
    await access.insertKey(tx.kysely, minted);
    return minted;
  });
  return { key: key.key, info: keyInfo(row, principal.name) };
}

/** Your own keys; an admin passing `all` sees everyone's. Secrets are never returned. */
export async function listKeys(
  ctx: EngineContext,
  options: { all?: boolean } = {},
): Promise<KeyInfo[]> {
  const rows = await access.listKeys(
    ctx.store.kysely,
    options.all && ctx.actor.admin ? null : ctx.actor.principalId,
  );
  const names = new Map<string, string>();
  const out: KeyInfo[] = [];
  for (const row of rows) {
    let name = names.get(row.principal_id);
    if (name === undefined) {
      name =
        (await access.principalById(ctx.store.kysely, row.principal_id))?.name ?? row.principal_id;
      names.set(row.principal_id, name);
    }
    out.push(keyInfo(row, name));
  }
  return out;
}

/**
 * Revokes one of your keys (an admin: anyone's) and, with it, every key minted from it,
 * transitively, whoever they are for. NOT_FOUND for keys you may not see.
 */
export async function revokeKey(ctx: EngineContext, id: string): Promise<KeyInfo> {
  return ctx.commit(async (tx) => {
    const row = typeof id === 'string' ? await access.keyById(tx.kysely, id) : undefined;
    if (!row || (!ctx.actor.admin && row.principal_id !== ctx.actor.principalId)) {
      throw new SatchelError('NOT_FOUND', `key ${id} not found`, { key: id });
    }
    const at = ctx.clock();
    await access.revokeKey(tx.kysely, row.id, at);
    const principal = await access.principalById(tx.kysely, row.principal_id);
    return keyInfo(
      { ...row, revoked_at: row.revoked_at ?? at },
      principal?.name ?? row.principal_id,
    );
  });
}
