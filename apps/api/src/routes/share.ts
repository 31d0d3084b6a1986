/**
 * Share links, opened by people without an account (docs/api.md, "Share links"): no bearer
 * key, the token is the authority, checked by the engine, which audits every view as the link.
 *
 * - `GET /s/<token>`: a file link answers with the file's bytes; a folder link with a JSON
 *   listing (`?cursor=&limit=`). `GET /s/<token>/<path>` reads or lists below a folder link.
 * - The password travels in the `Satchel-Share-Password` header, or as the `password` field of a
 *   `POST` to the same URL (an HTML form, `application/x-www-form-urlencoded`, or JSON), which
 *   answers like the GET. Never in the URL, where logs and Referers would keep it.
 * - A file is agent-written, untrusted content: `nosniff`, `Content-Security-Policy:
 *   default-src 'none'; sandbox`, and `Content-Disposition: attachment` unless its type is on a
 *   short list of passive types (plain text, raster images); `?download=1` forces attachment.
 * - With the web app mounted, a browser's navigation to a link goes to its page (`/share/…`).
 */
import { baseName, isSatchelError, type SatchelEngine, SatchelError } from '@satchel/core';
import { create as contentDisposition } from 'content-disposition';
import { type Context, Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import { downloadBody } from '../http/body.js';
import { CONTENT_SAFETY_HEADERS } from '../http/content-safety.js';
import { pageQuery, readBounded, urlPath } from '../input.js';

/** Types a browser may show inline from a share link: passive, no script, no markup. */
const INLINE_TYPES = new Set(['text/plain', 'image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const MAX_FORM_BYTES = 4096;
export const SHARE_PASSWORD_HEADER = 'Satchel-Share-Password';

type Ctx = Context<ApiEnv>;

function mediaType(contentType: string | null): string {
  return (contentType ?? 'application/octet-stream').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** The `password` field of a POSTed form or JSON body (undefined when absent). */
async function postedPassword(c: Ctx): Promise<string | undefined> {
  const text = await readBounded(c, MAX_FORM_BYTES);
  const type = mediaType(c.req.header('Content-Type') ?? null);
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new SatchelError('INVALID_INPUT', 'the body is not valid JSON', { field: 'body' });
    }
    const password = (parsed as { password?: unknown } | null)?.password;
    return typeof password === 'string' ? password : undefined;
  }
  if (type === 'application/x-www-form-urlencoded') {
    return new URLSearchParams(text).get('password') ?? undefined;
  }
  throw new SatchelError(
    'INVALID_INPUT',
    'POST a form (application/x-www-form-urlencoded) or JSON with a password field',
    { field: 'Content-Type' },
  );
}

async function view(
  engine: SatchelEngine,
  c: Ctx,
  password: string | undefined,
): Promise<Response> {
  const token = c.req.param('token') ?? '';
  // `/s/<token>/<path>`: the path after two segments, decoded once; core validates it.
  const below = c.req.path.split('/').length > 3 ? urlPath(c, 2) : '/';
  const shared = await engine.openShareLink(token, {
    password,
    path: below,
    ...pageQuery(c),
    download: c.req.method !== 'HEAD',
  });
  if (shared.type === 'directory') return c.json(shared.folder, 200);
  const { info } = shared.file;
  const type = info.contentType ?? 'application/octet-stream';
  const inline = INLINE_TYPES.has(mediaType(type)) && c.req.query('download') === undefined;
  const headers: Record<string, string> = {
    ...CONTENT_SAFETY_HEADERS,
    'Content-Type': type,
    'Content-Length': String(info.size),
    'Content-Disposition': contentDisposition(baseName(info.path), {
      type: inline ? 'inline' : 'attachment',
    }),
  };
  // Small files come whole from core: sent as one buffer, no stream.
  if (shared.file.bytes !== undefined) {
    return c.body(shared.file.bytes as Uint8Array<ArrayBuffer>, 200, headers);
  }
  return c.body(downloadBody(shared.file.body), 200, headers);
}

/** A browser opening the link as a page (typed in, clicked), not a program or an <img>. */
function isNavigation(c: Ctx): boolean {
  return (
    c.req.header('Sec-Fetch-Mode') === 'navigate' &&
    c.req.header('Sec-Fetch-Dest') === 'document' &&
    c.req.query('download') === undefined &&
    c.req.query('raw') === undefined
  );
}

/**
 * With `pagePrefix` (the web app is mounted), a browser navigating to `/s/<token>[/<path>]` is
 * sent to the web app's page for the link, `<pagePrefix>/<token>[/<path>]`, which shows a
 * folder's listing or the password form; `?raw=1` or `?download=1` get the bytes as before.
 */
export function shareRoutes(engine: SatchelEngine, pagePrefix?: string): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use('/s/*', async (c, next) => {
    await next();
    // The token is in the URL: nothing in between keeps the answer, nothing sends it onwards.
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Robots-Tag', 'noindex');
    // A token that names no link has no link id to audit under: the server-level log has it.
    if (isSatchelError(c.error, 'NOT_FOUND') && c.error.data.reason === 'unknown') {
      engine.auditRefusal({
        source: 'share-link',
        code: 'NOT_FOUND',
        action: `${c.req.method} /s`,
      });
    }
  });
  const get = (c: Ctx) =>
    pagePrefix !== undefined && isNavigation(c)
      ? c.redirect(`${pagePrefix}${new URL(c.req.url).pathname.slice(2)}`, 303)
      : view(engine, c, c.req.header(SHARE_PASSWORD_HEADER));
  const post = async (c: Ctx) => view(engine, c, await postedPassword(c));
  app.get('/s/:token', get);
  app.get('/s/:token/*', get);
  app.post('/s/:token', post);
  app.post('/s/:token/*', post);
  return app;
}
