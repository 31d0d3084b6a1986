/**
 * Per-key rate limiting (fixed window; counts kept by core's `RateBudgets`, shared by the nodes
 * of one PostgreSQL database) with IETF draft RateLimit headers.
 */
import type { RateBudgets, SatchelEngine } from '@satchel/core';
import type { MiddlewareHandler } from 'hono';
import { type RateLimitInfo, rateLimiter, type Store } from 'hono-rate-limiter';
import type { ApiEnv } from './api-env.js';
import { refusedRequest } from './auth.js';
import { HttpError } from './problem.js';

export interface RateLimitOptions {
  /** Requests each key may make per window. */
  readonly limit: number;
  /** Length of the window in seconds. */
  readonly windowSeconds: number;
  /** Limit admin keys too; default false (an operator is never locked out of their server). */
  readonly admin?: boolean;
}

/** Generous: a sync push writes one request per file. */
export const DEFAULT_RATE_LIMIT: RateLimitOptions = { limit: 6000, windowSeconds: 60 };

function checked({ limit, windowSeconds }: RateLimitOptions): void {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`rate limit must be a positive integer, got ${limit}`);
  }
  if (!Number.isSafeInteger(windowSeconds) || windowSeconds < 1) {
    throw new RangeError(
      `rate-limit window must be a positive integer of seconds, got ${windowSeconds}`,
    );
  }
}

/** The limiter's hit counter over core's budgets. */
function budgetStore(budgets: RateBudgets, windowMs: number): Store<ApiEnv> {
  return {
    increment: (key) => {
      const { hits, resetAt } = budgets.countHit(key, windowMs);
      return { totalHits: hits, resetTime: new Date(resetAt) };
    },
    decrement: (key) => budgets.uncount(key, windowMs),
    resetKey: (key) => budgets.reset(key),
    localKeys: false,
  };
}

/** Whole seconds until the window of `info` resets, at least 1 (a 429 must not say "retry now"). */
function resetSeconds(info: RateLimitInfo | undefined, windowSeconds: number): number {
  const reset = info?.resetTime;
  if (reset === undefined) return windowSeconds;
  return Math.max(1, Math.ceil((reset.getTime() - Date.now()) / 1000));
}

/**
 * Limits each API key (`c.get('actor').keyId`, so it must run after `bearerAuth`) to `limit`
 * requests per `windowSeconds`; admin keys pass unless `admin` is true. Every limited response
 * carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-07); a request
 * over the budget is RATE_LIMITED (429 problem+json) with `Retry-After` in seconds and is not
 * handled at all, and is reported to `engine`'s server-level audit (bounded there). Counts live
 * in the engine's budgets: one per key across the prefixes of an app and across the nodes of one
 * database.
 */
export function rateLimit(
  options: RateLimitOptions,
  engine: Pick<SatchelEngine, 'auditRefusal' | 'rates'>,
): MiddlewareHandler<ApiEnv> {
  checked(options);
  const { limit, windowSeconds } = options;
  const limitAdmins = options.admin ?? false;
  const policy = `${limit};w=${windowSeconds}`;
  const limiter = rateLimiter<ApiEnv>({
    windowMs: windowSeconds * 1000,
    limit,
    standardHeaders: 'draft-7',
    store: budgetStore(engine.rates, windowSeconds * 1000),
    keyGenerator: (c) => c.get('actor').keyId ?? c.get('actor').principalId,
    skip: (c) => {
      const actor = c.get('actor');
      // No actor: a route mounted without bearerAuth in front; it is not ours to limit.
      return actor === undefined || (actor.admin && !limitAdmins);
    },
    handler: (c) => {
      const info = c.get('rateLimit') as RateLimitInfo | undefined;
      const retryAfter = resetSeconds(info, windowSeconds);
      engine.auditRefusal({
        ...refusedRequest(c),
        code: 'RATE_LIMITED',
        actor: c.get('actor').name,
      });
      throw new HttpError(
        'RATE_LIMITED',
        `rate limit of ${limit} requests per ${windowSeconds} s exceeded for this key; retry in ${retryAfter} s`,
        {
          data: { limit, windowSeconds, retryAfter },
          headers: {
            'Retry-After': String(retryAfter),
            'RateLimit-Policy': policy,
            RateLimit: `limit=${limit}, remaining=0, reset=${retryAfter}`,
          },
        },
      );
    },
  });
  return async function rateLimit(c, next) {
    await limiter(c, next);
  };
}
