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
import type { MetadataQueries, MetadataStore } from '../store/metadata/metadata-store.js';
import type { KeyRecord, PrincipalRecord } from '../store/metadata/records.js';
import type { Credentials, KeyCache } from './key-cache.js';
import { checkLineage, checkMintDepth, childExpiry, unauthenticated } from './key-lineage.js';
import { generateKey, parseKey, secretMatches } from './keys.js';

export const ADMIN_NAME = 'admin';

function scopeOf(key: KeyRecord): KeyScope {
  return {
    workspaces: key.workspaces,
    roleCeiling: key.roleCeiling,
    pathPrefixes: key.pathPrefixes,
    readOnly: key.readOnly,
  };
}

export function actorOf(principal: PrincipalRecord, key: KeyRecord | null): Actor {
  return {
    principalId: principal.id,
    name: principal.name,
    kind: principal.kind,
    admin: principal.admin,
    keyId: key?.id ?? null,
    scope: key
      ? scopeOf(key)
      : { workspaces: null, roleCeiling: null, pathPrefixes: null, readOnly: false },
  };
}

function keyInfo(key: KeyRecord, principal: string): KeyInfo {
  const scope = scopeOf(key);
  return {
    id: key.id,
    principal,
    label: key.label,
    workspaces: scope.workspaces ? [...scope.workspaces] : null,
    role: scope.roleCeiling,
    pathPrefixes: scope.pathPrefixes ? [...scope.pathPrefixes] : null,
    readOnly: scope.readOnly,
    createdAt: iso(key.createdAt),
    expiresAt: key.expiresAt === null ? null : iso(key.expiresAt),
    revokedAt: key.revokedAt === null ? null : iso(key.revokedAt),
  };
}

function principalOut(row: PrincipalRecord): Principal {
  return {
    name: row.name,
    kind: row.kind,
    admin: row.admin,
    createdAt: iso(row.createdAt),
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
): Promise<{ admin: PrincipalRecord; createdKey: string | null }> {
  const existing = await store.access.principalByName(ADMIN_NAME);
  if (existing) return { admin: existing, createdKey: null };
  const admin: PrincipalRecord = {
    id: randomUUID(),
    name: ADMIN_NAME,
    kind: 'user',
    admin: true,
    createdAt: now,
  };
  const key = generateKey();
  if (keyFile) await writeSecretFile(keyFile, `${key.key}\n`);
  await store.transaction(async (tx) => {
    if (await tx.access.principalByName(ADMIN_NAME)) return;
    await tx.access.insertPrincipal(admin);
    await tx.access.insertKey({
      id: key.id,
      principalId: admin.id,
      parentId: null,
      secretHash: key.secretHash,
      label: 'admin (created at first start)',
      workspaces: null,
      roleCeiling: null,
      pathPrefixes: null,
      readOnly: false,
      expiresAt: null,
      revokedAt: null,
      createdAt: now,
    });
  });
  const created = await store.access.principalByName(ADMIN_NAME);
  if (!created) throw new SatchelError('INTERNAL', 'admin principal was not created');
  return { admin: created, createdKey: created.id === admin.id ? key.key : null };
}

/**
 * The actor a key stands for; UNAUTHENTICATED if it is malformed, unknown, revoked or expired,
 * or if a key it was minted from is. Reads the key, its ancestors and its principal in one
 * bounded query — or not at all while `cache` remembers the key (auth/key-cache.ts).
 */
export async function authenticate(
  q: MetadataQueries,
  key: string,
  now: number,
  cache?: KeyCache,
): Promise<Actor> {
  const parsed = typeof key === 'string' ? parseKey(key.trim()) : null;
  if (!parsed) throw unauthenticated('not a Satchel key (they start with satchel_)');
  const load = () => credentialsOf(q, parsed.id, parsed.secret, now);
  return cache ? cache.actor(parsed.id, parsed.secret, now, load) : (await load()).actor;
}

async function credentialsOf(
  q: MetadataQueries,
  id: string,
  secret: string,
  now: number,
): Promise<Credentials> {
  // The key, the keys it was minted from and its principal: one round trip.
  const { chain, principal } = await q.access.credentials(id);
  const [row] = chain;
  if (!row || !secretMatches(secret, row.secretHash)) throw unauthenticated('unknown key');
  const { expiresAt } = checkLineage(chain, now);
  if (!principal) throw unauthenticated('unknown key');
  return { actor: actorOf(principal, row), secretHash: row.secretHash, expiresAt };
}

export async function whoami(ctx: EngineContext): Promise<WhoAmI> {
  const key = ctx.actor.keyId ? await ctx.store.access.keyById(ctx.actor.keyId) : undefined;
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
    if (await tx.access.principalByName(name)) {
      throw new SatchelError('CONFLICT', `principal ${name} already exists`, {
        principal: name,
        reason: 'exists',
      });
    }
    const row: PrincipalRecord = {
      id: randomUUID(),
      name,
      kind,
      admin: false,
      createdAt: ctx.clock(),
    };
    await tx.access.insertPrincipal(row);
    return principalOut(row);
  });
}

export async function listPrincipals(
  ctx: EngineContext,
  options?: PageOptions,
): Promise<Page<Principal>> {
  const { cursor, limit = 100 } = parseOptions(PageOptionsSchema, options);
  const after = decodeCursor(cursor, ['a']);
  const rows = await ctx.store.access.principals(after ? String(after.a) : null, limit + 1);
  const items = rows.slice(0, limit).map(principalOut);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeCursor({ a: last.name }) : null };
}

export async function requirePrincipal(q: MetadataQueries, name: string): Promise<PrincipalRecord> {
  const row = typeof name === 'string' ? await q.access.principalByName(name) : undefined;
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
    : await ctx.store.access.principalById(ctx.actor.principalId);
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
    const parent = parentId ? checkLineage(await tx.access.keyChain(parentId), now) : null;
    checkMintDepth(parent);
    const minted: KeyRecord = {
      id: key.id,
      principalId: principal.id,
      parentId: parent ? parent.key.id : null,
      secretHash: key.secretHash,
      label: options.label ?? null,
      workspaces: scope.workspaces,
      roleCeiling: scope.roleCeiling,
      pathPrefixes: scope.pathPrefixes,
      readOnly: scope.readOnly,
      expiresAt: childExpiry(requested, parent),
      revokedAt: null,
      createdAt: now,
    };
    await tx.access.insertKey(minted);
    return minted;
  });
  return { key: key.key, info: keyInfo(row, principal.name) };
}

/** Your own keys; an admin passing `all` sees everyone's. Secrets are never returned. */
export async function listKeys(
  ctx: EngineContext,
  options: { all?: boolean } = {},
): Promise<KeyInfo[]> {
  const rows = await ctx.store.access.keys(
    options.all && ctx.actor.admin ? null : ctx.actor.principalId,
  );
  const names = new Map<string, string>();
  const out: KeyInfo[] = [];
  for (const row of rows) {
    let name = names.get(row.principalId);
    if (name === undefined) {
      name = (await ctx.store.access.principalById(row.principalId))?.name ?? row.principalId;
      names.set(row.principalId, name);
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
    const row = typeof id === 'string' ? await tx.access.keyById(id) : undefined;
    if (!row || (!ctx.actor.admin && row.principalId !== ctx.actor.principalId)) {
      throw new SatchelError('NOT_FOUND', `key ${id} not found`, { key: id });
    }
    const at = ctx.clock();
    await tx.access.revokeKey(row.id, at);
    const principal = await tx.access.principalById(row.principalId);
    return keyInfo({ ...row, revokedAt: row.revokedAt ?? at }, principal?.name ?? row.principalId);
  });
}
