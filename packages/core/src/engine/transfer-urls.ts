/**
 * Signed transfer URLs (docs/api.md, "Signed transfer URLs"): a URL that moves the bytes of one
 * file without an API key. The token in it is HMAC-SHA256-signed with a key every node of a
 * cluster reads from the metadata database (`meta`, written once by whichever node signs first),
 * and names the workspace (name and id), the path, the signer's key, the expiry, and for an
 * upload the expected size and SHA-256 and the write's conditions. When it is used, the signer's
 * key must still be valid (not revoked or expired) and the write or read runs as that key, so it
 * is authorised and audited as any other call: a signer who lost access makes the URL useless.
 * Single use is a row per used token in the database, so it holds across nodes.
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import type { Content } from '@satchel/client/operations/satchel.js';
import { parseOptions } from '@satchel/client/options.js';
import {
  normalizeEntryPath,
  normalizeFilePath,
  validateWorkspaceName,
} from '@satchel/client/paths.js';
import {
  type DownloadUrlOptions,
  DownloadUrlOptionsSchema,
  type TransferUrl,
  type UploadUrlOptions,
  UploadUrlOptionsSchema,
} from '@satchel/client/schemas/index.js';
import { actorOf } from '../auth/access.js';
import { checkLineage, unauthenticated } from '../auth/key-lineage.js';
import type { Actor } from '../kernel/actor.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { iso } from '../kernel/records.js';
import type { MetadataStore } from '../store/metadata/metadata-store.js';
import { tooLarge } from './ingest.js';
import { precheck } from './write.js';

/** Where signed URLs point and how long they live; one per engine. */
export interface TransferSettings {
  /** Base of the URLs (`SATCHEL_PUBLIC_URL`); null: relative URLs, the API adds its origin. */
  readonly publicUrl: string | null;
  /** Lifetime of a URL whose caller names none (seconds). */
  readonly defaultUrlSeconds: number;
  /** Longest lifetime a caller may ask for (seconds); INVALID_INPUT above. */
  readonly maxUrlSeconds: number;
  /** How long an upload session may sit idle (seconds). */
  readonly uploadIdleSeconds: number;
}

export const DEFAULT_URL_SECONDS = 15 * 60;
export const DEFAULT_MAX_URL_SECONDS = 24 * 60 * 60;

/** Below the server's URL: `PUT`/`GET /signed/<token>`, outside `/v1` (no bearer key). */
export const SIGNED_PREFIX = '/signed/';

const SECRET_SETTING = 'transfer_url_key';
const secrets = new WeakMap<MetadataStore, Promise<Buffer>>();

/** The signing key shared by every node of the database: created by the first that needs it. */
function signingKey(store: MetadataStore): Promise<Buffer> {
  let key = secrets.get(store);
  if (!key) {
    key = store
      .setting(SECRET_SETTING, randomBytes(32).toString('base64url'))
      .then((value) => Buffer.from(value, 'base64url'));
    key.catch(() => secrets.delete(store));
    secrets.set(store, key);
  }
  return key;
}

/** What a token says. Short keys: it travels in a URL. */
export interface TransferClaims {
  /** 'u' upload, 'd' download. */
  readonly o: 'u' | 'd';
  /** Workspace name and id: a workspace deleted and created again under the name is another. */
  readonly w: string;
  readonly wi: string;
  readonly p: string;
  /** The signer: principal id and key id (null: the data directory's local admin). */
  readonly pr: string;
  readonly k: string | null;
  /** Expiry, epoch milliseconds. */
  readonly e: number;
  /** Token id, for single use. */
  readonly j: string;
  readonly s?: number;
  readonly h?: string;
  readonly im?: number;
  readonly inm?: '*';
  /** The fencing token the upload presents, checked when the URL is used. */
  readonly lt?: number;
  readonly v?: number;
  /** A download URL usable until it expires. */
  readonly r?: true;
}

function mac(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(`satchel-transfer-url.${payload}`).digest('base64url');
}

async function sign(
  ctx: EngineContext,
  settings: TransferSettings,
  claims: TransferClaims,
): Promise<TransferUrl> {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const token = `${payload}.${mac(await signingKey(ctx.store), payload)}`;
  const base = settings.publicUrl?.replace(/\/+$/, '') ?? '';
  return { url: `${base}${SIGNED_PREFIX}${token}`, expiresAt: iso(claims.e) };
}

function expiryOf(ctx: EngineContext, settings: TransferSettings, expiresIn?: number): number {
  const seconds = expiresIn ?? settings.defaultUrlSeconds;
  if (seconds > settings.maxUrlSeconds) {
    throw new SatchelError(
      'INVALID_INPUT',
      `expiresIn may be at most ${settings.maxUrlSeconds} seconds on this server`,
      { field: 'expiresIn', max: settings.maxUrlSeconds },
    );
  }
  return ctx.clock() + seconds * 1000;
}

/** A URL that writes `path` once, with exactly the bytes it names when it names them. */
export async function createUploadUrl(
  ctx: EngineContext,
  settings: TransferSettings,
  workspace: string,
  rawPath: string,
  rawOptions?: UploadUrlOptions,
): Promise<TransferUrl> {
  validateWorkspaceName(workspace);
  const path = normalizeFilePath(rawPath);
  const options = parseOptions(UploadUrlOptionsSchema, rawOptions ?? {});
  if (options.size !== undefined && options.size > ctx.limits.maxFileSize) {
    throw tooLarge(ctx.limits.maxFileSize);
  }
  const { ws } = await precheck(ctx, workspace, path, options, options.sha256, options.size);
  return sign(ctx, settings, {
    o: 'u',
    w: workspace,
    wi: ws.id,
    p: path,
    pr: ctx.actor.principalId,
    k: ctx.actor.keyId,
    e: expiryOf(ctx, settings, options.expiresIn),
    j: randomUUID(),
    ...(options.size === undefined ? {} : { s: options.size }),
    ...(options.sha256 === undefined ? {} : { h: options.sha256 }),
    ...(options.ifMatch === undefined ? {} : { im: options.ifMatch }),
    ...(options.ifNoneMatch === undefined ? {} : { inm: options.ifNoneMatch }),
    ...(options.lockToken === undefined ? {} : { lt: options.lockToken }),
  });
}

/** A URL that reads the file (its head when used, or the version named now). */
export async function createDownloadUrl(
  ctx: EngineContext,
  settings: TransferSettings,
  workspace: string,
  rawPath: string,
  rawOptions?: DownloadUrlOptions,
): Promise<TransferUrl> {
  validateWorkspaceName(workspace);
  const path = normalizeEntryPath(rawPath);
  const options = parseOptions(DownloadUrlOptionsSchema, rawOptions ?? {});
  const ws = await requireWorkspace(ctx.store, workspace);
  return sign(ctx, settings, {
    o: 'd',
    w: workspace,
    wi: ws.id,
    p: path,
    pr: ctx.actor.principalId,
    k: ctx.actor.keyId,
    e: expiryOf(ctx, settings, options.expiresIn),
    j: randomUUID(),
    ...(options.version === undefined ? {} : { v: options.version }),
    ...(options.reusable === true ? { r: true as const } : {}),
  });
}

function refused(reason: 'invalid' | 'expired' | 'used' | 'kind'): SatchelError {
  const messages = {
    invalid: 'this transfer URL is not valid',
    expired: 'this transfer URL has expired; ask for a new one',
    used: 'this transfer URL was already used; ask for a new one',
    kind: 'this transfer URL is for the other direction (PUT uploads, GET downloads)',
  };
  return new SatchelError('UNAUTHENTICATED', messages[reason], { reason });
}

/** The claims of a token this database's key signed; UNAUTHENTICATED otherwise. */
async function verify(store: MetadataStore, token: string, now: number): Promise<TransferClaims> {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined || token.length > 4096)
    throw refused('invalid');
  const expected = Buffer.from(mac(await signingKey(store), payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw refused('invalid');
  }
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TransferClaims;
  if (typeof claims.e !== 'number' || claims.e <= now) throw refused('expired');
  return claims;
}

/** The signer as an actor now: UNAUTHENTICATED if the key was revoked or expired since. */
async function signer(store: MetadataStore, claims: TransferClaims, now: number): Promise<Actor> {
  const principal = await store.access.principalById(claims.pr);
  if (!principal) throw unauthenticated('the signer of this URL no longer exists');
  if (claims.k === null) return actorOf(principal, null);
  const chain = await store.access.keyChain(claims.k);
  const [key] = chain;
  if (!key || key.principalId !== claims.pr) throw unauthenticated('unknown key');
  checkLineage(chain, now);
  return actorOf(principal, key);
}

/** A checked redemption: who acts, and what the URL allows. */
export interface Redemption {
  readonly claims: TransferClaims;
  readonly actor: Actor;
  /** Makes a single-use URL usable again (the transfer failed before anything changed). */
  readonly release: () => Promise<void>;
}

/**
 * Checks a token for a transfer in direction `kind` and claims its single use. UNAUTHENTICATED
 * (`reason`: invalid, expired, used, kind) or the signer's key's own refusal; NOT_FOUND when
 * the workspace it names is gone (or is another one now under that name).
 */
export async function redeem(
  store: MetadataStore,
  clock: () => number,
  token: string,
  kind: 'u' | 'd',
): Promise<Redemption> {
  const now = clock();
  const claims = await verify(store, token, now);
  if (claims.o !== kind) throw refused('kind');
  const actor = await signer(store, claims, now);
  const ws = await store.findWorkspace(claims.w);
  if (!ws || ws.id !== claims.wi) {
    throw new SatchelError('NOT_FOUND', `workspace ${claims.w} not found`, { workspace: claims.w });
  }
  const single = claims.o === 'u' || claims.r !== true;
  if (single) {
    const fresh = await store.transaction((tx) => tx.uploads.useToken(claims.j, claims.e, now));
    if (!fresh) throw refused('used');
  }
  const release = async () => {
    if (single) await store.transaction((tx) => tx.uploads.releaseToken(claims.j));
  };
  return { claims, actor, release };
}

/**
 * `content` checked against what an upload URL names: TOO_LARGE as soon as it goes past the
 * size, INVALID_INPUT at its end when it is shorter or hashes to something else. The error ends
 * the stream, so the write keeps nothing.
 */
export async function* boundContent(
  content: Content,
  claims: TransferClaims,
): AsyncGenerator<Uint8Array> {
  const hash = createHash('sha256');
  let size = 0;
  const source: Iterable<Uint8Array | string> | AsyncIterable<Uint8Array | string> =
    typeof content === 'string' || content instanceof Uint8Array ? [content] : content;
  for await (const raw of source) {
    const piece = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    size += piece.byteLength;
    if (claims.s !== undefined && size > claims.s) {
      throw new SatchelError('TOO_LARGE', `this URL uploads exactly ${claims.s} bytes`, {
        size: claims.s,
      });
    }
    hash.update(piece);
    yield piece;
  }
  if (claims.s !== undefined && size !== claims.s) {
    throw new SatchelError(
      'INVALID_INPUT',
      `this URL uploads exactly ${claims.s} bytes; ${size} arrived`,
      { size: claims.s, received: size, reason: 'size_mismatch' },
    );
  }
  const digest = hash.digest('hex');
  if (claims.h !== undefined && digest !== claims.h) {
    throw new SatchelError(
      'INVALID_INPUT',
      `this URL uploads content with SHA-256 ${claims.h}; the bytes hash to ${digest}`,
      { expected: claims.h, actual: digest, reason: 'hash_mismatch' },
    );
  }
}
