/**
 * `webApp`: the web app for the people agents hand work to (docs/web.md) — server-rendered
 * pages over core's `Satchel` facade, acting as the signed-in user, so authorisation and audit
 * are exactly the REST API's. `satchel serve` mounts it at `/` beside `/v1` and `/mcp`.
 */
import { ERROR_STATUS, type SatchelEngine, SatchelError } from '@satchel/core';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import { assetRoutes } from './assets.js';
import { Layout } from './layout.js';
import { accessRoutes } from './pages/access.js';
import { activityRoutes } from './pages/activity.js';
import { auditRoutes } from './pages/audit.js';
import { browseRoutes } from './pages/browse.js';
import { claimRoutes } from './pages/claim.js';
import { commentRoutes } from './pages/comments.js';
import { fileRoutes } from './pages/file.js';
import { historyRoutes } from './pages/history.js';
import { manageRoutes } from './pages/manage.js';
import { shareRoutes } from './pages/share.js';
import { signInRoutes } from './pages/sign-in.js';
import { undoRoutes } from './pages/undo.js';
import { uploadRoutes } from './pages/upload.js';
import { COMMON_HEADERS, checkOrigin, cookieName, csrfTokenOf, PAGE_CSP } from './security.js';
import type { WebEnv } from './web-env.js';

export interface WebOptions {
  /**
   * Mark the session cookie Secure (and name it `__Host-…`): `true`, `false`, or `'auto'` —
   * when the request came over HTTPS, or a trusted proxy says it did. Default `'auto'`.
   */
  readonly secureCookies?: boolean | 'auto';
  /**
   * Believe `X-Forwarded-Proto` from a reverse proxy in front of Satchel (it terminates TLS).
   * Only set this when every request comes through that proxy. Default false.
   */
  readonly trustProxy?: boolean;
  /** Receives unexpected faults (rendered as a 500 page without details). Default: stderr. */
  readonly logFault?: (error: unknown) => void;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function isSecure(c: Context<WebEnv>, options: WebOptions): boolean {
  const setting = options.secureCookies ?? 'auto';
  if (setting !== 'auto') return setting;
  if (new URL(c.req.url).protocol === 'https:') return true;
  return options.trustProxy === true && c.req.header('X-Forwarded-Proto') === 'https';
}

/**
 * Every request: the security headers, which connection it came over, the session its cookie
 * names (a cookie that no longer names a live session is deleted), and the Origin check on
 * state-changing requests. The CSRF token is checked where the form is read (forms.ts).
 */
function sessions(engine: SatchelEngine, options: WebOptions): MiddlewareHandler<WebEnv> {
  return async function sessions(c, next) {
    const secure = isSecure(c, options);
    c.set('secure', secure);
    c.set('signedIn', null);
    const name = cookieName(secure);
    const cookie = getCookie(c, name);
    if (cookie !== undefined) {
      try {
        const { actor, session } = await engine.authenticateWebSession(cookie);
        c.set('signedIn', {
          satchel: engine.as(actor),
          principal: actor.name,
          session,
          csrf: csrfTokenOf(cookie),
        });
      } catch (error) {
        if (!(error instanceof SatchelError && error.code === 'UNAUTHENTICATED')) throw error;
        deleteCookie(c, name, { path: '/', secure });
      }
    }
    if (UNSAFE.has(c.req.method)) checkOrigin(c);
    await next();
  };
}

function securityHeaders(): MiddlewareHandler<WebEnv> {
  return async function securityHeaders(c, next) {
    await next();
    for (const [name, value] of Object.entries(COMMON_HEADERS)) c.res.headers.set(name, value);
    if (!c.res.headers.has('Content-Security-Policy')) {
      c.res.headers.set('Content-Security-Policy', PAGE_CSP);
    }
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
  };
}

const TITLES: Partial<Record<string, string>> = {
  UNAUTHENTICATED: 'Sign in',
  FORBIDDEN: 'Not allowed',
  NOT_FOUND: 'Not found',
  REDACTED: 'Redacted',
};

/** An error as a page with the status its code maps to; faults say nothing of their cause. */
function errorPage(
  c: Context<WebEnv>,
  error: unknown,
  options: WebOptions,
): Response | Promise<Response> {
  const known = error instanceof SatchelError && ERROR_STATUS[error.code] < 500;
  if (!known) (options.logFault ?? ((e) => console.error('satchel web:', e)))(error);
  const code = error instanceof SatchelError ? error.code : 'INTERNAL';
  const status = error instanceof SatchelError ? ERROR_STATUS[error.code] : 500;
  const message = known ? error.message : 'Something went wrong on the server. Try again later.';
  const title = TITLES[code] ?? (status >= 500 ? 'Server error' : 'Cannot do that');
  return c.html(
    <Layout title={title} signedIn={c.get('signedIn') ?? null}>
      <h1>{title}</h1>
      <p role="alert">{message}</p>
      {code === 'UNAUTHENTICATED' && (
        <p>
          Ask the person who runs this Satchel for a sign-in link (
          <code>satchel login-link --principal YOUR-NAME</code>), then open it in this browser.
        </p>
      )}
      <p>
        <a href="/">Back to the start</a>
      </p>
    </Layout>,
    status as 400,
  );
}

/**
 * The web app over `engine`. Pages act through `engine.as(<the session's user>)`; nothing is
 * decided here that core does not decide for the REST API too.
 */
export function webApp(engine: SatchelEngine, options: WebOptions = {}): Hono<WebEnv> {
  const app = new Hono<WebEnv>();
  app.use('*', securityHeaders());
  app.route('/', assetRoutes());
  app.use('*', sessions(engine, options));
  app.route('/', signInRoutes(engine));
  app.route('/', browseRoutes());
  app.route('/', fileRoutes());
  app.route('/', historyRoutes());
  app.route('/', undoRoutes());
  app.route('/', activityRoutes());
  app.route('/', manageRoutes());
  app.route('/', uploadRoutes());
  app.route('/', commentRoutes());
  app.route('/', claimRoutes());
  app.route('/', accessRoutes());
  app.route('/', auditRoutes());
  app.route('/', shareRoutes(engine));
  app.notFound((c) =>
    errorPage(c, new SatchelError('NOT_FOUND', `there is no page at ${c.req.path}`), options),
  );
  app.onError((error, c) => errorPage(c, error, options));
  return app;
}
