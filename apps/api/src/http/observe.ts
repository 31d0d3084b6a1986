/** The observing middleware: one metrics sample and one access-log line per finished request. */
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Logger } from 'pino';
import type { ApiEnv } from '../api-env.js';
import { type ApiMetrics, UNMATCHED_ROUTE } from '../metrics.js';
import { counted } from './counted.js';

export interface ObserveOptions {
  readonly metrics: ApiMetrics;
  readonly logger: Logger;
}

/**
 * The route pattern that answered: the last matched route that is not wildcard middleware
 * (`app.use('*')`, `app.use('/v1/*')`). A 401 on a real route still names that route; a URL no
 * route matches (404, 405) is UNMATCHED_ROUTE, so labels stay few whatever clients send.
 */
export function routeLabel(c: Context<ApiEnv>): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i];
    if (route !== undefined && (route.method !== 'ALL' || !route.path.endsWith('*'))) {
      return route.path;
    }
  }
  return UNMATCHED_ROUTE;
}

/** The media type of a response, without parameters, lower-case. */
function mediaType(res: Response): string {
  return (res.headers.get('Content-Type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

const IN_MEMORY_TYPES = new Set(['application/json', 'application/problem+json']);

/**
 * Makes the response body count its bytes and calls `finish` once it is sent (or abandoned).
 * JSON without a length is the app's own `c.json()` result, already a string in memory: it is
 * re-sent as that string, which keeps its exact Content-Length. Everything else (file
 * downloads, SSE, exports) is wrapped as a stream and counted as the client reads it — except
 * a body a route declared in memory (`bodyBytes`), counted when the response finishes.
 */
async function countResponseBody(
  c: Context<ApiEnv>,
  finish: (bytes: number, complete: boolean) => void,
): Promise<void> {
  // Asked first: reading `res.body` turns @hono/node-server's lightweight response into a
  // full fetch Response (~10 % of a small GET's CPU), which an in-memory body never needs.
  if (c.req.method === 'HEAD') {
    finish(0, true);
    return;
  }
  const inMemory = c.get('bodyBytes');
  if (inMemory !== undefined) {
    // One buffer, written at once: sent whole when the response finishes, else not counted.
    const outgoing = c.env?.outgoing;
    if (outgoing === undefined) finish(inMemory, true);
    else {
      outgoing.once('close', () => {
        const complete = outgoing.writableFinished;
        finish(complete ? inMemory : 0, complete);
      });
    }
    return;
  }
  const res = c.res;
  if (res.body === null) {
    finish(0, true);
    return;
  }
  const init = { status: res.status, statusText: res.statusText, headers: res.headers };
  let body: string | ReadableStream<Uint8Array>;
  if (!res.headers.has('Content-Length') && IN_MEMORY_TYPES.has(mediaType(res))) {
    const text = await res.text();
    body = text;
    finish(Buffer.byteLength(text), true);
  } else {
    body = counted(res.body, { onEnd: finish });
  }
  // Cleared first: assigning over a response would copy its headers into a second new one.
  c.res = undefined;
  c.res = new Response(body, init);
}

/**
 * Times every request from arrival to the last byte of its response, counts body bytes both
 * ways as they stream (nothing is buffered but the app's own JSON), and on completion records
 * the request in `metrics` and logs one access line at info: request id, method, route, path
 * (no query string), status, duration, bytes in and out, and the caller's name. Headers and
 * bodies are never logged, so neither is a bearer key.
 */
export function observe({ metrics, logger }: ObserveOptions): MiddlewareHandler<ApiEnv> {
  return async function observe(c, next) {
    const started = process.hrtime.bigint();
    // Counted as the app reads it (http/request-body.ts).
    const bytesIn = () => c.get('body')?.bytes ?? 0;
    await next();
    const route = routeLabel(c);
    const status = c.res.status;
    await countResponseBody(c, (bytesOut, complete) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const method = c.req.method;
      metrics.observeRequest({ method, route, status, seconds, bytesIn: bytesIn(), bytesOut });
      if (!logger.isLevelEnabled('info')) return;
      logger.info(
        {
          requestId: c.get('requestId'),
          method,
          route,
          path: c.req.path,
          status,
          durationMs: Math.round(seconds * 1e6) / 1e3,
          bytesIn: bytesIn(),
          bytesOut,
          actor: c.get('actor')?.name ?? null,
          ...(complete ? {} : { aborted: true }),
        },
        'request',
      );
    });
  };
}
