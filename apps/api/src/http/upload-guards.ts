/**
 * Guards against clients that hold a connection, a temp file and a slot in core without sending:
 * an idle timeout between request body chunks, and a cap on file uploads in flight per key.
 */
import type { SatchelEngine } from '@satchel/core';
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../api-env.js';
import { refusedRequest } from '../auth.js';
import { HttpError } from '../problem.js';

function idleError(seconds: number): HttpError {
  return new HttpError(
    'INVALID_INPUT',
    `the request body stopped arriving: no bytes for ${seconds} s (body idle timeout)`,
    { status: 408, data: { idleTimeoutSeconds: seconds }, headers: { Connection: 'close' } },
  );
}

/**
 * `source` as a stream that fails with `idleError` when the client leaves it waiting `seconds`
 * for the next chunk. The clock runs only while the reader waits on the client: time the reader
 * spends storing a chunk (core's disk, fsync) is not the client's. On timeout the source is
 * cancelled, so the connection is released rather than drained.
 */
function idleLimited(
  source: ReadableStream<Uint8Array>,
  seconds: number,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let timer: NodeJS.Timeout | undefined;
        const idle = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(idleError(seconds)), seconds * 1000);
        });
        try {
          const next = await Promise.race([reader.read(), idle]);
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          reader.cancel(error).catch(() => undefined);
          controller.error(error);
        } finally {
          clearTimeout(timer);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Fails a request body with 408 (INVALID_INPUT, `Connection: close`) when no byte of it arrives
 * for `seconds` while the app waits for one. An idle timeout, not a whole-request one: an upload
 * of gigabytes over a slow link may take hours, but never stalls for long.
 */
export function bodyIdleTimeout(seconds: number): MiddlewareHandler<ApiEnv> {
  return async function bodyIdleTimeout(c, next) {
    const raw = c.req.raw;
    // The method first: asking a GET for its body builds a whole fetch Request to say null.
    if (raw.method !== 'GET' && raw.method !== 'HEAD' && raw.body !== null) {
      c.req.raw = new Request(raw.url, {
        method: raw.method,
        headers: raw.headers,
        body: idleLimited(raw.body, seconds),
        signal: raw.signal,
        duplex: 'half',
      } as RequestInit);
    }
    await next();
  };
}

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
