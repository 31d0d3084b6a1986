/** What pages read from a request: the signed-in user, a checked form, a workspace path. */
import { SatchelError } from '@satchel/core';
import type { Context } from 'hono';
import { checkCsrf } from './security.js';
import type { SignedIn, WebEnv } from './web-env.js';

/** The signed-in user; UNAUTHENTICATED (a page saying how to sign in) otherwise. */
export function requireSignIn(c: Context<WebEnv>): SignedIn {
  const signedIn = c.get('signedIn');
  if (signedIn === null) {
    throw new SatchelError('UNAUTHENTICATED', 'you are not signed in, or your session ended', {
      reason: 'session',
    });
  }
  return signedIn;
}

/**
 * The fields of a form posted by the signed-in user, after checking its CSRF token (the
 * `csrf` field, or the `X-CSRF-Token` header htmx sends). FORBIDDEN (`csrf`) without it.
 */
export async function signedForm(
  c: Context<WebEnv>,
): Promise<{ signedIn: SignedIn; form: Record<string, string> }> {
  const signedIn = requireSignIn(c);
  const form = await plainForm(c);
  checkCsrf(signedIn.csrf, form.csrf ?? c.req.header('X-CSRF-Token'));
  return { signedIn, form };
}

/** A posted form's text fields (files and repeated fields are ignored). */
export async function plainForm(c: Context<WebEnv>): Promise<Record<string, string>> {
  const type = c.req.header('Content-Type') ?? '';
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return {};
  const body = await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(body))
    if (typeof value === 'string') out[name] = value;
  return out;
}

/**
 * The workspace and path of `/w/<ws>/<kind>/<path…>`, each segment percent-decoded from the
 * raw URL ("/" for the root). INVALID_PATH for a segment that does not decode.
 */
export function workspacePath(c: Context<WebEnv>): { ws: string; path: string } {
  const [, , wsRaw = '', , ...rest] = new URL(c.req.url).pathname.split('/');
  const decode = (segment: string) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw new SatchelError('INVALID_PATH', `malformed URL segment ${segment.slice(0, 100)}`);
    }
  };
  const segments = rest.filter((s) => s !== '').map(decode);
  return { ws: decode(wsRaw), path: `/${segments.join('/')}` };
}

/** A positive integer from the query string (a version's seq), or undefined. */
export function seqParam(c: Context<WebEnv>, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,15}$/.test(raw)) {
    throw new SatchelError('INVALID_INPUT', `${name} must be a version number`, { field: name });
  }
  return Number(raw);
}
