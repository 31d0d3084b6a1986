/** The Hono environment every route of the API shares: what middleware puts in the context. */
import type { HttpBindings } from '@hono/node-server';
import type { Actor, Satchel } from '@satchel/core';
import type { RateLimitInfo } from 'hono-rate-limiter';
import type { RequestBody } from './http/request-body.js';

/** Variables set by middleware before any route runs (see app.ts and auth.ts). */
export interface ApiVariables {
  /** From `X-Request-Id` when the client sent a sane one, else generated; echoed on every response. */
  requestId: string;
  /** The engine acting as the authenticated caller; set for every route under `/v1`. */
  satchel: Satchel;
  /** The authenticated caller (its key id keys the rate limit); set with `satchel`. */
  actor: Actor;
  /**
   * The engine acting as the same key, authenticated afresh: what long-lived responses (change
   * streams, long polls) call to notice a key revoked or expired since the request began.
   * Rejects with UNAUTHENTICATED (401) as the first authentication would.
   */
  reauthenticate: () => Promise<Satchel>;
  /** The key's budget in this window; set by the rate limiter (rate-limit.ts) when it counts. */
  rateLimit: RateLimitInfo;
  /**
   * Set by a route whose response body is one buffer in memory: its length. The observer
   * (http/observe.ts) then counts it as sent when the response finishes, without wrapping it.
   */
  bodyBytes: number;
  /** The request body, read once through it (http/request-body.ts); set for every request. */
  body: RequestBody;
}

export interface ApiEnv {
  Variables: ApiVariables;
  /** Present when served by @hono/node-server; absent under `app.request()`. */
  Bindings: Partial<HttpBindings>;
}
