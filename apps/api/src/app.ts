/** `createApp`: the Hono app over an engine — middleware, routes, and the one error handler. */
import { randomUUID } from 'node:crypto';
import { DEFAULT_LIMITS, type Satchel, type SatchelEngine, SatchelError } from '@satchel/core';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { ApiEnv } from './api-env.js';
import { bearerAuth } from './auth.js';
import { observe } from './http/observe.js';
import { requestBodies } from './http/request-body.js';
import { concurrentUploads } from './http/upload-guards.js';
import { defaultLogger, faultLogger } from './logging.js';
import { type ApiMetrics, createMetrics } from './metrics.js';
import { type FaultLogger, HttpError, isFault, problemHeaders, toProblem } from './problem.js';
import { DEFAULT_RATE_LIMIT, type RateLimitOptions, rateLimit } from './rate-limit.js';
import { auditRoutes } from './routes/audit.js';
import { batchRoutes } from './routes/batch.js';
import { changeRoutes } from './routes/changes.js';
import { docsRoutes } from './routes/docs.js';
import { fileRoutes } from './routes/files.js';
import { historyRoutes } from './routes/history.js';
import { lockRoutes } from './routes/locks.js';
import { metricsRoutes } from './routes/metrics.js';
import { operationRoutes } from './routes/operations.js';
import { shareRoutes } from './routes/share.js';
import { signedRoutes } from './routes/signed.js';
import { treeRoutes } from './routes/tree.js';
import { uploadRoutes } from './routes/uploads.js';

export interface ApiOptions {
  /** Largest upload (PUT, append) in bytes; 413 above. Default: core's maximum file size. */
  readonly maxBodyBytes?: number;
  /** Largest JSON request body in bytes; 413 above. Default 4 MiB. */
  readonly maxJsonBytes?: number;
  /**
   * Seconds a request body may leave the server waiting for its next byte; then 408 and the
   * connection is closed (an upload's temp file is removed). Default 60.
   */
  readonly bodyIdleTimeoutSeconds?: number;
  /**
   * File uploads (PUT, POST ?append) one key may stream at once; one more is 429 RATE_LIMITED
   * with Retry-After. Default 32: above sync's 8 parallel transfers, with room for other agents on the key.
   */
  readonly maxConcurrentUploads?: number;
  /** Receives unexpected faults (500s) with their request id. Default: `logger.error`. */
  readonly logFault?: FaultLogger;
  /**
   * Structured logs: one access line per request at info, faults at error with their stack.
   * Default: pino at `warn` on stderr (faults only). Keys, headers and bodies are never logged.
   */
  readonly logger?: Logger;
  /**
   * Requests per API key per window under `/v1` (and `/mcp`); over it, 429 RATE_LIMITED with
   * Retry-After. Admin keys are exempt unless `admin: true`. `false` turns limiting off.
   * Default: 6000 requests per 60 s.
   */
  readonly rateLimit?: RateLimitOptions | false;
  /** Source of the `satchel_webhook_queue_depth` gauge on /metrics; absent → no gauge. */
  readonly webhookQueueDepth?: () => Promise<number>;
  /** Aborting it ends long-lived responses (change-feed streams, long polls): server shutdown. */
  readonly signal?: AbortSignal;
  /** Seconds an SSE change feed waits for news before a keep-alive comment (≤ 60). Default 25. */
  readonly heartbeatSeconds?: number;
  /**
   * How often an open change stream or long poll checks that its key and membership still
   * allow it (one key lookup and one authorised read each time), besides before every batch of
   * events it sends. Default 5 s.
   */
  readonly accessRecheckSeconds?: number;
  /**
   * The Streamable HTTP MCP endpoint, mounted at `/mcp` behind the same bearer authentication as
   * `/v1` (see @satchel/mcp `createMcpHttpHandler`); it gets the Satchel acting as the key, and
   * a function that authenticates the key again (so open sessions end when it is revoked).
   * Absent: no `/mcp` route.
   */
  readonly mcp?: (
    request: Request,
    satchel: Satchel,
    reauthenticate: () => Promise<Satchel>,
  ) => Promise<Response>;
  /**
   * The web app for people (@satchel/web `webApp(engine).fetch`): every request no route of the
   * API answers, outside `/v1` and `/mcp`, goes to it — so it is served at `/` with its own
   * authentication (session cookies), while the API's paths keep their problem+json answers.
   * Absent: those requests are 404.
   */
  readonly web?: (request: Request) => Response | Promise<Response>;
}

/** Paths only the API answers, even with a web app mounted: its 404s stay problem+json. */
function isApiPath(path: string): boolean {
  return /^\/(v1|mcp)(\/|$)/.test(path);
}

/** What every route factory gets: the options with their defaults applied. */
export interface RouteConfig {
  readonly logFault: FaultLogger;
  readonly metrics: ApiMetrics;
  readonly maxBodyBytes: number;
  readonly maxJsonBytes: number;
  readonly signal: AbortSignal;
  readonly heartbeatSeconds: number;
  readonly accessRecheckSeconds: number;
}

const SANE_REQUEST_ID = /^[\w.:@-]{1,128}$/;
// A "." or ".." segment, literal or percent-encoded, in a raw request target.
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;

function requestId(): MiddlewareHandler<ApiEnv> {
  return async function requestId(c, next) {
    const given = c.req.header('X-Request-Id');
    const id = given !== undefined && SANE_REQUEST_ID.test(given) ? given : randomUUID();
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    await next();
  };
}

/**
 * Refuses dot segments in the request target instead of letting them be resolved: URL
 * normalisation would turn `PUT …/files/a/%2e%2e/b` into a write to `/b`. Only a real server
 * sees the raw target; `app.request()` receives URLs its caller's parser already normalised.
 */
function refuseDotSegments(): MiddlewareHandler<ApiEnv> {
  return async function refuseDotSegments(c, next) {
    // c.env is undefined under app.request(), whatever its declared type.
    const target = c.env?.incoming?.url;
    const path = target?.split('?')[0];
    if (path !== undefined && DOT_SEGMENT.test(path)) {
      throw new SatchelError('INVALID_PATH', '"." and ".." segments are not allowed in URLs', {
        path,
        reason: 'dot_segment',
      });
    }
    await next();
  };
}

/** Status recorded (logs, metrics) for a request whose client went away before its answer. */
const CLIENT_CLOSED_STATUS = 499;

/**
 * The error as a problem+json response; faults are logged with the request id. A request whose
 * client closed the connection (an upload cut off mid-body fails in core with the stream's
 * error) is not a fault: it is logged at info without a stack and recorded as 499 (nginx's
 * "client closed request"), a response nobody receives.
 */
function problemResponse(
  c: Context<ApiEnv>,
  error: unknown,
  logFault: FaultLogger,
  logger: Logger,
): Response {
  const id = c.get('requestId') ?? randomUUID();
  if (c.req.raw.signal.aborted && !(error instanceof SatchelError)) {
    const reason = error instanceof Error ? error.message : String(error);
    logger.info(
      { requestId: id, method: c.req.method, path: c.req.path, reason },
      'client closed the connection',
    );
    error = new HttpError('INVALID_INPUT', 'the client closed the connection', {
      status: CLIENT_CLOSED_STATUS,
    });
  }
  if (isFault(error)) logFault({ requestId: id, method: c.req.method, path: c.req.path, error });
  const problem = toProblem(error, id);
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { ...problemHeaders(error), 'X-Request-Id': id },
  });
}

function patternOf(path: string): RegExp {
  const source = path
    .split('/')
    .map((part) =>
      part === '*'
        ? '.*'
        : part.startsWith(':')
          ? '[^/]+'
          : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/** For 405: the methods routes accept on a path (null when no route has the path at all). */
function allowedMethods(app: Hono<ApiEnv>): (path: string) => string[] | null {
  const table = app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => ({ method: r.method, pattern: patternOf(r.path) }));
  return (path) => {
    const allow = new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method));
    if (allow.has('GET')) allow.add('HEAD');
    return allow.size === 0 ? null : [...allow].sort();
  };
}

/**
 * The REST API over `engine` (CONTRACT.md, REST API). `/healthz` is public; everything under
 * `/v1` needs `Authorization: Bearer <key>` and runs as that key's principal. Errors are RFC 9457
 * problem+json with a `code` (problem.ts); every response carries `X-Request-Id`. The app holds
 * no state of its own: it can be served by any Hono adapter or tested with `app.request()`.
 */
export function createApp(engine: SatchelEngine, options: ApiOptions = {}): Hono<ApiEnv> {
  const logger = options.logger ?? defaultLogger();
  const logFault = options.logFault ?? faultLogger(logger);
  const metrics = createMetrics(
    options.webhookQueueDepth === undefined ? {} : { webhookQueueDepth: options.webhookQueueDepth },
  );
  const config: RouteConfig = {
    logFault,
    metrics,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_LIMITS.maxFileSize,
    maxJsonBytes: options.maxJsonBytes ?? 4 * 1024 * 1024,
    signal: options.signal ?? new AbortController().signal,
    heartbeatSeconds: options.heartbeatSeconds ?? 25,
    accessRecheckSeconds: options.accessRecheckSeconds ?? 5,
  };
  const app = new Hono<ApiEnv>();
  app.use('*', requestId());
  app.use('*', requestBodies(options.bodyIdleTimeoutSeconds ?? 60));
  app.use('*', observe({ metrics, logger }));
  app.use('*', refuseDotSegments());
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const { ready, database, content } = await engine.readiness();
    if (ready) return c.json({ status: 'ready', database, content });
    c.header('Retry-After', '1');
    return c.json({ status: 'unavailable', database, content }, 503);
  });
  app.route('/', docsRoutes());

  const auth = bearerAuth({ engine });
  app.route('/', metricsRoutes(auth, metrics));
  // What every authenticated prefix runs (`/v1/*`, and `/mcp`): the key, then its budget, which
  // is one per key across prefixes.
  const guard: MiddlewareHandler<ApiEnv>[] = [auth];
  if (options.rateLimit !== false) {
    guard.push(rateLimit(options.rateLimit ?? DEFAULT_RATE_LIMIT, engine));
  }
  app.use('/v1/*', ...guard);
  const uploads = concurrentUploads(options.maxConcurrentUploads ?? 32, engine);
  app.on(['PUT', 'POST'], '/v1/workspaces/:ws/files/*', uploads);
  app.on('PATCH', '/v1/workspaces/:ws/uploads/:id', uploads);
  // Signed transfer URLs carry their own authority: no bearer key (routes/signed.ts).
  app.route('/', signedRoutes(engine, config));
  // Share links too: opened by people without an account (routes/share.ts).
  app.route('/', shareRoutes(engine, options.web === undefined ? undefined : '/share'));
  // The operation table's routes first: `GET …/files` lists before the file wildcard reads.
  for (const routes of [
    // Before the derived routes: its GET answers with the Upload-Offset headers too.
    uploadRoutes(config),
    operationRoutes(config),
    fileRoutes(config),
    treeRoutes(config),
    batchRoutes(config),
    historyRoutes(config),
    lockRoutes(config),
    changeRoutes(config),
    auditRoutes(config),
  ]) {
    app.route('/v1', routes);
  }
  const mcp = options.mcp;
  if (mcp !== undefined) {
    app.use('/mcp', ...guard);
    app.all('/mcp', (c) => mcp(c.get('body').request(), c.get('satchel'), c.get('reauthenticate')));
  }

  const allowed = allowedMethods(app);
  const web = options.web;
  app.notFound((c) => {
    const allow = allowed(c.req.path);
    if (web !== undefined && allow === null && !isApiPath(c.req.path)) return web(c.req.raw);
    const error =
      allow === null
        ? new HttpError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`, {
            data: { route: c.req.path },
          })
        : new HttpError('INVALID_INPUT', `${c.req.method} is not allowed on ${c.req.path}`, {
            status: 405,
            data: { method: c.req.method, allow },
            headers: { Allow: allow.join(', ') },
          });
    return problemResponse(c, error, logFault, logger);
  });
  app.onError((error, c) => problemResponse(c, error, logFault, logger));
  return app;
}
