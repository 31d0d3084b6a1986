/**
 * Sign-in for people (docs/web.md): one-time login links and the browser sessions they start.
 * A link's token and a session's secret are 32 random bytes stored only as their SHA-256 (like
 * API keys: high-entropy secrets, so a slow hash buys nothing). A session acts as its principal
 * with no key narrowing, so only an admin, or the principal itself with an unnarrowed key, may
 * create a link — a narrowed key must not be able to mint wider access.
 */
import { randomBytes } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import {
  type CreateLoginLink,
  CreateLoginLinkSchema,
  DEFAULT_LOGIN_LINK_SECONDS,
  type LoginLink,
  type WebSession,
} from '@satchel/client/schemas/index.js';
import { actorOf } from '../auth/access.js';
import { secretMatches, sha256 } from '../auth/keys.js';
import type { Actor } from '../kernel/actor.js';
import type { EngineContext } from '../kernel/context.js';
import { iso } from '../kernel/records.js';
import type { MetadataQueries, MetadataStore } from '../store/metadata/metadata-store.js';
import type { WebSessionRecord } from '../store/metadata/records.js';

/** How long a browser session lasts after sign-in, whatever it does meanwhile. */
export const WEB_SESSION_SECONDS = 7 * 24 * 3600;
/** A session's last-seen time is written at most this often (a page view is not a write). */
const TOUCH_EVERY_MS = 5 * 60_000;
const LOGIN_TOKEN_PREFIX = 'login_';
const COOKIE_PATTERN = /^([0-9a-f]{32})\.([A-Za-z0-9_-]{43})$/;

/** A signed-in browser: who it acts as, and the session it holds. */
export interface WebSignIn {
  readonly actor: Actor;
  readonly session: WebSession;
}

/** A sign-in that just happened: the cookie value to set (shown only here) and the session. */
export interface WebSignInStarted extends WebSignIn {
  readonly cookie: string;
}

function narrowed(actor: Actor): boolean {
  const { workspaces, roleCeiling, pathPrefixes, readOnly } = actor.scope;
  return workspaces !== null || roleCeiling !== null || pathPrefixes !== null || readOnly;
}

function sessionOut(row: WebSessionRecord, principal: string): WebSession {
  return {
    id: row.id,
    principal,
    userAgent: row.userAgent,
    createdAt: iso(row.createdAt),
    lastSeenAt: iso(row.lastSeenAt),
    expiresAt: iso(row.expiresAt),
  };
}

function invalidSession(): SatchelError {
  return new SatchelError('UNAUTHENTICATED', 'you are not signed in, or your session ended', {
    reason: 'session',
  });
}

/**
 * Creates a login link for `options.principal` (default: the caller). FORBIDDEN (`not_admin`)
 * for someone else unless the caller is an admin; FORBIDDEN (`narrowed_key`) for a non-admin
 * calling with a narrowed key; NOT_FOUND for an unknown principal; INVALID_INPUT (`agent`) for
 * an agent, which signs in with API keys.
 */
export async function createLoginLink(
  ctx: EngineContext,
  publicUrl: string | null,
  input?: CreateLoginLink,
): Promise<LoginLink> {
  const options = parseOptions(CreateLoginLinkSchema, input ?? {});
  const name = options.principal ?? ctx.actor.name;
  if (!ctx.actor.admin) {
    if (name !== ctx.actor.name) {
      throw new SatchelError(
        'FORBIDDEN',
        `${ctx.actor.name} may not create login links for ${name}`,
        { reason: 'not_admin' },
      );
    }
    if (narrowed(ctx.actor)) {
      throw new SatchelError(
        'FORBIDDEN',
        'a login link signs in with all of your access: create it with a key that is not narrowed',
        { reason: 'narrowed_key' },
      );
    }
  }
  const principal = await ctx.store.access.principalByName(name);
  if (principal === undefined) {
    throw new SatchelError('NOT_FOUND', `principal ${name} not found`, { principal: name });
  }
  if (principal.kind !== 'user') {
    throw new SatchelError(
      'INVALID_INPUT',
      `${name} is an agent: agents use API keys, login links are for people`,
      { principal: name, reason: 'agent' },
    );
  }
  const now = ctx.clock();
  const token = `${LOGIN_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const expiresAt = now + (options.expiresInSeconds ?? DEFAULT_LOGIN_LINK_SECONDS) * 1000;
  await ctx.commit(async (tx) => {
    await tx.webSessions.deleteExpired(now);
    await tx.webSessions.insertLink({
      tokenHash: sha256(token),
      principalId: principal.id,
      createdBy: ctx.actor.principalId,
      createdAt: now,
      expiresAt,
    });
  });
  const base = publicUrl?.replace(/\/+$/, '') ?? '';
  return {
    principal: principal.name,
    token,
    url: `${base}/login?token=${encodeURIComponent(token)}`,
    expiresAt: iso(expiresAt),
  };
}

/**
 * Uses up a login link and starts a session for its principal. UNAUTHENTICATED (`link`) when
 * the token is unknown, used or expired — one message for all three, so it tells nothing.
 */
export async function signInWithLink(
  store: MetadataStore,
  now: number,
  token: string,
  userAgent: string | null,
): Promise<WebSignInStarted> {
  const refused = new SatchelError(
    'UNAUTHENTICATED',
    'this sign-in link is not valid: it was used, it expired, or it never existed; ask for a new one',
    { reason: 'link' },
  );
  if (typeof token !== 'string' || token.length > 200) throw refused;
  const id = randomBytes(16).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const started = await store.transaction(async (tx) => {
    const link = await tx.webSessions.takeLink(sha256(token), now);
    const principal = link && (await tx.access.principalById(link.principalId));
    if (principal === undefined) return undefined;
    const row: WebSessionRecord = {
      id,
      secretHash: sha256(secret),
      principalId: principal.id,
      userAgent: userAgent?.slice(0, 300) ?? null,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + WEB_SESSION_SECONDS * 1000,
      revokedAt: null,
    };
    await tx.webSessions.insertSession(row);
    return { actor: actorOf(principal, null), session: sessionOut(row, principal.name) };
  });
  if (started === undefined) throw refused;
  return { ...started, cookie: `${id}.${secret}` };
}

/** The live session a cookie value names; UNAUTHENTICATED (`session`) otherwise. */
async function liveSession(
  q: MetadataQueries,
  cookie: string,
  now: number,
): Promise<WebSessionRecord> {
  const [, id, secret] = COOKIE_PATTERN.exec(typeof cookie === 'string' ? cookie : '') ?? [];
  const row = id === undefined ? undefined : await q.webSessions.sessionById(id);
  if (row === undefined || secret === undefined || !secretMatches(secret, row.secretHash)) {
    throw invalidSession();
  }
  if (row.revokedAt !== null || row.expiresAt <= now) throw invalidSession();
  return row;
}

/**
 * Who a session cookie signs in as, read afresh on every call (a revocation or a deleted
 * principal takes effect at the next request). UNAUTHENTICATED (`session`) for a malformed,
 * unknown, revoked or expired session.
 */
export async function authenticateWebSession(
  store: MetadataStore,
  now: number,
  cookie: string,
): Promise<WebSignIn> {
  const row = await liveSession(store, cookie, now);
  const principal = await store.access.principalById(row.principalId);
  if (principal === undefined) throw invalidSession();
  if (now - row.lastSeenAt >= TOUCH_EVERY_MS) {
    await store.transaction((tx) => tx.webSessions.touchSession(row.id, now));
  }
  return { actor: actorOf(principal, null), session: sessionOut(row, principal.name) };
}

/** Ends the session a cookie names (sign-out); UNAUTHENTICATED if it is not live. */
export async function signOutWebSession(
  store: MetadataStore,
  now: number,
  cookie: string,
): Promise<void> {
  const row = await liveSession(store, cookie, now);
  await store.transaction((tx) => tx.webSessions.revokeSession(row.id, now));
}

/** The caller's live browser sessions, newest first. */
export async function listWebSessions(ctx: EngineContext): Promise<WebSession[]> {
  const rows = await ctx.store.webSessions.liveSessions(ctx.actor.principalId, ctx.clock());
  return rows.map((row) => sessionOut(row, ctx.actor.name));
}

/** Revokes one of the caller's sessions (an admin: anyone's); NOT_FOUND for others. */
export async function revokeWebSession(ctx: EngineContext, id: string): Promise<void> {
  await ctx.commit(async (tx) => {
    const row = typeof id === 'string' ? await tx.webSessions.sessionById(id) : undefined;
    if (row === undefined || (!ctx.actor.admin && row.principalId !== ctx.actor.principalId)) {
      throw new SatchelError('NOT_FOUND', `web session ${id} not found`, { session: id });
    }
    await tx.webSessions.revokeSession(row.id, ctx.clock());
  });
}
