/** The Hono environment every route of the API shares: what middleware puts in the context. */
import type { HttpBindings } from '@hono/node-server';
import type { Satchel } from '@satchel/core';

/** Variables set by middleware before any route runs (see app.ts and auth.ts). */
export interface ApiVariables {
  /** From `X-Request-Id` when the client sent a sane one, else generated; echoed on every response. */
  requestId: string;
  /** The engine acting as the authenticated caller; set for every route under `/v1`. */
  satchel: Satchel;
}

export interface ApiEnv {
  Variables: ApiVariables;
  /** Present when served by @hono/node-server; absent under `app.request()`. */
  Bindings: Partial<HttpBindings>;
}
