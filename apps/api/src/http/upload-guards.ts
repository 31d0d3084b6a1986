/**
 * Guards against clients that hold a connection, a temp file and a slot in core without sending:
 * a cap on file uploads in flight per key (the idle timeout between body pieces is the request
 * body's own, http/request-body.ts).
 */
import type { SatchelEngine } from '@satchel/core';
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../api-env.js';
import { refusedRequest } from '../auth.js';
import { HttpError } from '../problem.js';

/**
 * Lets each key (`actor.keyId`, so it runs after `bearerAuth`) stream at most `max` file uploads
 * at once; one more is refused before its body is read with 429 RATE_LIMITED, `Retry-After: 1`
 * and `limit`. A slot is held until the route has answered (core has consumed the body by then).
 * Counts live in this process's memory.
 */
export function concurrentUploads(
  max: number,
  engine?: Pick<SatchelEngine, 'auditRefusal'>,
): MiddlewareHandler<ApiEnv> {
  const inFlight = new Map<string, number>();
  return async function concurrentUploads(c, next) {
    const actor = c.get('actor');
    const key = actor.keyId ?? actor.principalId;
    const count = inFlight.get(key) ?? 0;
    if (count >= max) {
      engine?.auditRefusal({ ...refusedRequest(c), code: 'RATE_LIMITED', actor: actor.name });
      throw new HttpError(
        'RATE_LIMITED',
        `too many uploads in flight for this key: at most ${max} at once; retry when one ends`,
        { data: { limit: max, retryAfter: 1 }, headers: { 'Retry-After': '1' } },
      );
    }
    inFlight.set(key, count + 1);
    try {
      await next();
    } finally {
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left <= 0) inFlight.delete(key);
      else inFlight.set(key, left);
    }
  };
}
