/**
 * The web app's defences (docs/web.md, "Security model"): the session cookie's attributes, the
 * CSRF token tied to the session, the Origin check on state-changing requests, and the
 * Content-Security-Policy of pages and of raw content written by agents.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { SatchelError } from '@satchel/core';
import type { Context } from 'hono';
import type { WebEnv } from './web-env.js';

/**
 * Pages: scripts and styles only from our own origin (no inline script, no eval), no plugins
 * but our own PDF objects, nothing framing us, forms posting only to us.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "object-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * Raw content: nothing may load, run or frame it; `sandbox` gives it an opaque origin, so even
 * a browser that renders it cannot reach the app's cookies or pages.
 */
export const RAW_CSP = "default-src 'none'; frame-ancestors 'self'; sandbox";

/** Raw PDF: as RAW_CSP without `sandbox`, which would stop the browser's PDF viewer. */
export const PDF_CSP = "default-src 'none'; frame-ancestors 'self'";

/** Headers every response of the web app carries. */
export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * The cookie's name: with the `__Host-` prefix over HTTPS, so the browser refuses one set
 * without Secure, for another path, or by a sibling domain.
 */
export function cookieName(secure: boolean): string {
  return secure ? '__Host-satchel_session' : 'satchel_session';
}

/** The Set-Cookie attributes of a session cookie. */
export function cookieOptions(secure: boolean, maxAgeSeconds: number) {
  return {
    path: '/',
    httpOnly: true,
    secure,
    sameSite: 'Lax' as const,
    maxAge: maxAgeSeconds,
  };
}

/**
 * The CSRF token of a session: derived from its cookie, so it needs no storage, differs per
 * session, and cannot be computed by a page that cannot read the HttpOnly cookie.
 */
export function csrfTokenOf(cookie: string): string {
  return createHash('sha256').update(`satchel-csrf\0${cookie}`).digest('base64url');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The origin the browser sees this app at (scheme from the TLS or trusted proxy). */
export function expectedOrigin(c: Context<WebEnv>): string {
  const url = new URL(c.req.url);
  const host = c.req.header('Host') ?? url.host;
  return `${c.get('secure') ? 'https' : 'http'}://${host}`;
}

/**
 * Refuses a state-changing request another site may have sent: an `Origin` header that is not
 * ours, or, without one, `Sec-Fetch-Site` saying cross-site. FORBIDDEN (`reason: origin`).
 */
export function checkOrigin(c: Context<WebEnv>): void {
  const origin = c.req.header('Origin');
  const site = c.req.header('Sec-Fetch-Site');
  const ok =
    origin !== undefined && origin !== 'null'
      ? origin === expectedOrigin(c)
      : site === undefined || site === 'same-origin' || site === 'none';
  if (!ok) {
    throw new SatchelError('FORBIDDEN', 'this request came from another site; it was refused', {
      reason: 'origin',
    });
  }
}

/** FORBIDDEN (`reason: csrf`) unless `given` is the session's CSRF token. */
export function checkCsrf(expected: string, given: unknown): void {
  if (typeof given !== 'string' || !same(given, expected)) {
    throw new SatchelError(
      'FORBIDDEN',
      'this form has expired or did not come from this site: reload the page and try again',
      { reason: 'csrf' },
    );
  }
}
