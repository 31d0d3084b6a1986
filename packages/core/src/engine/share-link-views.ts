/**
 * Opening a share link (`GET /s/<token>[/<path>]`): no account, no key — the token is the
 * authority. Each view runs as the link itself (actor `share:<id>`, read-only, confined to the
 * link's path), authorised by the link's state and password and audited like any call, so the
 * audit log lists every view under the link's id. A file download counts against the link's
 * limit in the transaction that records it; a listing does not count.
 */
import { SatchelError } from '@satchel/client/errors.js';
import type { FileStream } from '@satchel/client/operations/satchel.js';
import { isWithin, normalizePath } from '@satchel/client/paths.js';
import type { SharedFolder } from '@satchel/client/schemas/index.js';
import { secretMatches } from '../auth/keys.js';
import { passwordMatches } from '../auth/passwords.js';
import type { Actor } from '../kernel/actor.js';
import { requireWorkspace } from '../kernel/context.js';
import { iso } from '../kernel/records.js';
import type { ShareLinkRecord } from '../store/metadata/metadata-store.js';
import { describeCall, type EngineServices, runAudited } from './calls.js';
import { list, readFile } from './read.js';
import { parseShareToken, shareLinkState } from './share-links.js';

/** What a visitor asks of a link. */
export interface ShareRequest {
  /** The password, when the link has one. */
  readonly password?: string | undefined;
  /** Below a shared folder ("/" or absent: the folder itself); a file link takes none. */
  readonly path?: string | undefined;
  readonly cursor?: string | undefined;
  readonly limit?: number | undefined;
  /** False for a HEAD: the file's headers without counting a download. Default true. */
  readonly download?: boolean | undefined;
}

export type ShareView =
  | { readonly type: 'file'; readonly file: FileStream }
  | { readonly type: 'directory'; readonly folder: SharedFolder };

function unknownLink(): SatchelError {
  return new SatchelError('NOT_FOUND', 'this share link does not exist', { reason: 'unknown' });
}

function refusedLink(state: 'revoked' | 'expired' | 'used_up'): SatchelError {
  const messages = {
    revoked: 'this share link was revoked; ask its owner for a new one',
    expired: 'this share link has expired; ask its owner for a new one',
    used_up: 'this share link has reached its download limit; ask its owner for a new one',
  };
  const reason = state === 'used_up' ? 'download_limit' : state;
  return new SatchelError('FORBIDDEN', messages[state], { reason });
}

/** The link as an actor: read-only, one workspace, viewer at most, its own path only. */
function linkActor(link: ShareLinkRecord, workspace: string): Actor {
  return {
    principalId: `share:${link.id}`,
    name: `share:${link.id}`,
    kind: 'user',
    admin: false,
    keyId: null,
    scope: {
      workspaces: [workspace],
      roleCeiling: 'viewer',
      pathPrefixes: [link.path],
      readOnly: true,
    },
  };
}

/** The workspace path a request names: the link's own, or one below its folder. */
function targetPath(link: ShareLinkRecord, requested: string | undefined): string {
  const below = normalizePath(requested === undefined || requested === '' ? '/' : requested);
  if (link.kind === 'file') {
    if (below !== '/') {
      throw new SatchelError(
        'NOT_FOUND',
        'this share link is for one file; it has no paths below it',
        {
          reason: 'not_a_folder',
        },
      );
    }
    return link.path;
  }
  const full = link.path === '/' ? below : below === '/' ? link.path : `${link.path}${below}`;
  // normalizePath refused "." and ".." already; this keeps the rule in one visible place.
  if (!isWithin(full, link.path)) {
    throw new SatchelError('INVALID_PATH', 'the path is outside the shared folder', {
      reason: 'outside',
    });
  }
  return full;
}

/**
 * Opens what `token` shares. NOT_FOUND for an unknown or malformed token (no link id: the API
 * records it in the server-level log); then, audited as `share:<id>`: FORBIDDEN (`reason`
 * revoked, expired, download_limit), UNAUTHENTICATED (`reason` password_required,
 * wrong_password), INVALID_PATH / NOT_FOUND for a path outside the folder or not there,
 * REDACTED for redacted content.
 */
export async function openShareLink(
  services: EngineServices,
  token: string,
  request: ShareRequest,
): Promise<ShareView> {
  const parsed = parseShareToken(token);
  if (!parsed) throw unknownLink();
  const found = await services.store.shareLinks.withWorkspace(parsed.id);
  if (!found || !secretMatches(parsed.secret, found.link.tokenHash)) throw unknownLink();
  const { link, workspace } = found;
  const actor = linkActor(link, workspace);
  let path = link.path;
  try {
    path = targetPath(link, request.path);
  } catch {
    // Refused below, inside the audited call, with the path as it was asked for.
  }
  const call = describeCall('openShareLink', workspace, path);
  return runAudited(
    services,
    actor,
    call,
    async () => {
      const state = shareLinkState(link, services.clock());
      if (state !== 'active') throw refusedLink(state);
      if (link.passwordHash !== null) {
        if (request.password === undefined || request.password === '') {
          throw new SatchelError('UNAUTHENTICATED', 'this share link needs its password', {
            reason: 'password_required',
          });
        }
        if (!(await passwordMatches(request.password, link.passwordHash))) {
          throw new SatchelError('UNAUTHENTICATED', 'wrong password for this share link', {
            reason: 'wrong_password',
          });
        }
      }
    },
    async (ctx) => {
      const target = targetPath(link, request.path);
      const ws = await requireWorkspace(ctx.store, workspace);
      const entryType =
        target === '/' ? 'directory' : (await ctx.store.getEntry(ws.id, target))?.type;
      if (entryType === undefined) {
        throw new SatchelError('NOT_FOUND', 'nothing is shared at this path', {
          reason: 'missing',
        });
      }
      if (entryType === 'directory') {
        const page = await list(ctx, workspace, {
          path: target,
          cursor: request.cursor,
          limit: request.limit ?? 100,
        });
        const strip = link.path === '/' ? 0 : link.path.length;
        return {
          type: 'directory' as const,
          folder: {
            path: target.slice(strip) || '/',
            items: page.items.map((item) => ({
              path: item.path.slice(strip),
              type: item.type,
              size: item.size,
              contentType: item.contentType,
              modifiedAt: item.modifiedAt,
            })),
            nextCursor: page.nextCursor,
            expiresAt: iso(link.expiresAt),
          },
        };
      }
      const file = await readFile(ctx, workspace, target);
      if (request.download === false) return { type: 'file' as const, file };
      try {
        await ctx.commit(async (tx) => {
          if (!(await tx.shareLinks.countDownload(link.id))) throw refusedLink('used_up');
          return true;
        });
      } catch (error) {
        file.body.destroy();
        throw error;
      }
      return { type: 'file' as const, file };
    },
  );
}
