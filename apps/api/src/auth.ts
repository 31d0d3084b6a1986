/** Bearer-key authentication: `Authorization: Bearer <key>` → the engine acting as that key. */
import { type SatchelEngine, SatchelError } from '@satchel/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { ApiEnv } from './api-env.js';
import { HttpError } from './problem.js';

export interface BearerAuthOptions {
  readonly engine: SatchelEngine;
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * What core's server-level audit records of a request refused before it reached the engine:
 * which frontend (`mcp` for `/mcp`, else `rest`), the method and path (never the query string,
 * which may carry a signed link's token), and the session label.
 */
export function refusedRequest(c: Context<ApiEnv>): {
  source: string;
  action: string;
  session: string | null;
} {
  const path = c.req.path;
  return {
    source: path === '/mcp' || path.startsWith('/mcp/') ? 'mcp' : 'rest',
    action: `${c.req.method} ${path}`,
    session: c.req.header('Satchel-Session') ?? null,
  };
}

/**
 * Authenticates every request it guards: a missing or malformed `Authorization` header, or a
 * key the engine does not accept (unknown, revoked, expired), is UNAUTHENTICATED (401 with
 * `WWW-Authenticate: Bearer`). On success `c.get('satchel')` acts as the key's principal, so
 * core authorises and audits each call as that principal, within the key's narrowing;
 * `c.get('actor')` is that principal (for rate limits and access logs), and
 * `c.get('reauthenticate')` checks the key again for responses that outlive the request's start.
 * Every refusal is reported to core's server-level audit (`engine.auditRefusal`), which records
 * the key's public id at most, never its secret, and bounds how many entries a flood leaves.
 */
export function bearerAuth({ engine }: BearerAuthOptions): MiddlewareHandler<ApiEnv> {
  return async function bearerAuth(c, next) {
    const header = c.req.header('Authorization');
    const key = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (key === undefined) {
      engine.auditRefusal({ ...refusedRequest(c), code: 'UNAUTHENTICATED', key: null });
      throw new SatchelError(
        'UNAUTHENTICATED',
        header === undefined
          ? 'missing API key: send Authorization: Bearer <key>'
          : 'malformed Authorization header: use Authorization: Bearer <key>',
      );
    }
    const authenticate = async () => {
      try {
        return await engine.authenticate(key);
      } catch (error) {
        if (error instanceof SatchelError && error.code === 'UNAUTHENTICATED') {
          // RFC 6750 §3.1: a presented but unusable token is "invalid_token".
          throw new HttpError('UNAUTHENTICATED', error.message, {
            data: error.data,
            headers: { 'WWW-Authenticate': 'Bearer realm="satchel", error="invalid_token"' },
          });
        }
        throw error;
      }
    };
    let actor: Awaited<ReturnType<typeof engine.authenticate>>;
    try {
      actor = await authenticate();
    } catch (error) {
      if (error instanceof SatchelError && error.code === 'UNAUTHENTICATED') {
        engine.auditRefusal({ ...refusedRequest(c), code: 'UNAUTHENTICATED', key });
      }
      throw error;
    }
    c.set('actor', actor);
    c.set('satchel', engine.as(actor));
    c.set('reauthenticate', async () => engine.as(await authenticate()));
    await next();
  };
}
