/**
 * Share links (issue 17, item 6): a read-only link to a file or folder for people without an
 * account, opened at `/s/<token>` (share-link-views.ts). The token is `shr_<id>_<secret>`, 32
 * random bytes of secret stored only as its SHA-256 (as API keys are); a password, when set, is
 * stored as scrypt (auth/passwords.ts). Editors and owners create and list links; the link's
 * creator or an owner revokes it.
 */
import { randomBytes } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizePath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type CreatedShareLink,
  type CreateShareLink,
  CreateShareLinkSchema,
  type Page,
  type PageOptions,
  PageOptionsSchema,
  type ShareLink,
} from '@satchel/client/schemas/index.js';
import { effectiveRole } from '../auth/authorize.js';
import { sha256 } from '../auth/keys.js';
import { hashPassword } from '../auth/passwords.js';
import { type EngineContext, notFound, requireWorkspace } from '../kernel/context.js';
import { decodeCursor, encodeCursor } from '../kernel/cursors.js';
import { iso } from '../kernel/records.js';
import type { ShareLinkRecord } from '../store/metadata/metadata-store.js';
import type { TransferSettings } from './transfer-urls.js';

export const DEFAULT_SHARE_SECONDS = 7 * 24 * 60 * 60;
export const MAX_SHARE_SECONDS = 90 * 24 * 60 * 60;
/** Below the server's URL, outside `/v1`: no bearer key. */
export const SHARE_PREFIX = '/s/';

const TOKEN_PATTERN = /^shr_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** The id and secret of a well-formed token, or null. */
export function parseShareToken(token: string): { id: string; secret: string } | null {
  const [, id, secret] = TOKEN_PATTERN.exec(token) ?? [];
  return id && secret ? { id: `shr_${id}`, secret } : null;
}

export function shareLinkState(link: ShareLinkRecord, now: number): ShareLink['state'] {
  if (link.revokedAt !== null) return 'revoked';
  if (link.expiresAt <= now) return 'expired';
  if (link.maxDownloads !== null && link.downloads >= link.maxDownloads) return 'used_up';
  return 'active';
}

export function shareLinkOut(link: ShareLinkRecord, workspace: string, now: number): ShareLink {
  return {
    id: link.id,
    workspace,
    path: link.path,
    kind: link.kind,
    expiresAt: iso(link.expiresAt),
    hasPassword: link.passwordHash !== null,
    maxDownloads: link.maxDownloads,
    downloads: link.downloads,
    createdBy: link.createdBy,
    createdAt: iso(link.createdAt),
    revokedAt: link.revokedAt === null ? null : iso(link.revokedAt),
    revokedBy: link.revokedBy,
    state: shareLinkState(link, now),
  };
}

export async function createShareLink(
  ctx: EngineContext,
  settings: TransferSettings,
  workspace: string,
  rawInput: CreateShareLink,
): Promise<CreatedShareLink> {
  validateWorkspaceName(workspace);
  const input = parseOptions(CreateShareLinkSchema, rawInput);
  const path = normalizePath(input.path);
  const seconds = input.expiresIn ?? DEFAULT_SHARE_SECONDS;
  if (seconds > MAX_SHARE_SECONDS) {
    throw new SatchelError(
      'INVALID_INPUT',
      `expiresIn may be at most ${MAX_SHARE_SECONDS} seconds (90 days)`,
      { field: 'expiresIn', max: MAX_SHARE_SECONDS },
    );
  }
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const hex = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const token = `shr_${hex}_${secret}`;
  const now = ctx.clock();
  const link = await ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const entry = path === '/' ? null : await tx.getEntry(ws.id, path);
    if (path !== '/' && !entry) throw notFound(path);
    const row: ShareLinkRecord = {
      id: `shr_${hex}`,
      workspaceId: ws.id,
      path,
      kind: entry?.type ?? 'directory',
      tokenHash: sha256(secret),
      passwordHash,
      expiresAt: now + seconds * 1000,
      maxDownloads: input.maxDownloads ?? null,
      downloads: 0,
      createdBy: ctx.actor.name,
      createdAt: now,
      revokedAt: null,
      revokedBy: null,
    };
    await tx.shareLinks.insert(row);
    return row;
  });
  const base = settings.publicUrl?.replace(/\/+$/, '') ?? '';
  return {
    ...shareLinkOut(link, workspace, now),
    token,
    url: `${base}${SHARE_PREFIX}${token}`,
  };
}

export async function listShareLinks(
  ctx: EngineContext,
  workspace: string,
  rawOptions?: PageOptions,
): Promise<Page<ShareLink>> {
  validateWorkspaceName(workspace);
  const options = parseOptions(PageOptionsSchema, rawOptions);
  const limit = options.limit ?? 100;
  const ws = await requireWorkspace(ctx.store, workspace);
  const cursor = decodeCursor(options.cursor, ['t', 'i']);
  const before = cursor ? { createdAt: Number(cursor.t), id: String(cursor.i) } : null;
  const rows = await ctx.store.shareLinks.list(ws.id, before, limit + 1);
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const now = ctx.clock();
  return {
    items: items.map((row) => shareLinkOut(row, workspace, now)),
    nextCursor:
      rows.length > limit && last ? encodeCursor({ t: last.createdAt, i: last.id }) : null,
  };
}

/**
 * Revokes link `id` of the workspace at once (every later view is refused): its creator or an
 * owner may; FORBIDDEN for other editors, NOT_FOUND for a link of another workspace. Revoking
 * a revoked link changes nothing.
 */
export async function revokeShareLink(
  ctx: EngineContext,
  workspace: string,
  id: string,
): Promise<ShareLink> {
  validateWorkspaceName(workspace);
  const now = ctx.clock();
  const row = await ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const link = await tx.shareLinks.byId(String(id));
    if (!link || link.workspaceId !== ws.id) {
      throw new SatchelError('NOT_FOUND', `share link ${id} not found`, { shareLink: id });
    }
    const role = await effectiveRole(tx, ctx.actor, ws);
    if (link.createdBy !== ctx.actor.name && role !== 'owner') {
      throw new SatchelError(
        'FORBIDDEN',
        `${ctx.actor.name} may not revoke a share link ${link.createdBy} created: that takes its creator or an owner`,
        { reason: 'role', role, needed: 'owner' },
      );
    }
    await tx.shareLinks.revoke(link.id, now, ctx.actor.name);
    return (await tx.shareLinks.byId(link.id)) ?? link;
  });
  return shareLinkOut(row, workspace, now);
}
