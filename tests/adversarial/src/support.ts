/**
 * What every adversarial file shares: a real engine on a temp data directory, the REST app over
 * it (`createApp`, requests through `app.request`, no port), and one API key of each kind an
 * attacker may hold. One world per test file: the files run in parallel, the cases in a file
 * share it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiOptions, createApp } from '@satchel/api';
import { openSatchel, type SatchelEngine } from '@satchel/core';

/** The kinds of key the matrix tries; see `KEY_KINDS`. */
export type KeyKind =
  | 'none'
  | 'garbage'
  | 'revoked'
  | 'expired'
  | 'viewer'
  | 'editor'
  | 'owner'
  | 'otherWorkspace'
  | 'pathPrefix'
  | 'readOnly';

export const KEY_KINDS: readonly KeyKind[] = [
  'none',
  'garbage',
  'revoked',
  'expired',
  'viewer',
  'editor',
  'owner',
  'otherWorkspace',
  'pathPrefix',
  'readOnly',
];

/** The prefix the `pathPrefix` key may change. */
export const PREFIX = '/agent-output';

export interface World {
  readonly engine: SatchelEngine;
  readonly app: ReturnType<typeof createApp>;
  readonly admin: string;
  /** The temp directory holding the data directory (`root/data`). */
  readonly root: string;
  /** The secret of each kind (null: no Authorization header). */
  readonly keys: Readonly<Record<KeyKind, string | null>>;
  request(
    method: string,
    path: string,
    options?: { key?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Workspace `demo` (members: `ow` owner, `ed` editor, `vi` viewer) and `other` (owned by `ow`),
 * with `/notes.md` in demo. Keys: `ow`'s narrowed to `other` and read-only, `ed`'s narrowed to
 * `/agent-output`, one of `ed`'s revoked, one expired (created with 1 s and waited out).
 */
export async function createWorld(options: ApiOptions = {}): Promise<World> {
  const data = await mkdtemp(join(tmpdir(), 'satchel-adversarial-'));
  const engine = await openSatchel({ data: join(data, 'data') });
  const admin = engine.createdAdminKey;
  if (admin === null) throw new Error('a fresh data directory creates the admin key');
  await engine.createWorkspace('demo');
  await engine.createWorkspace('other');
  for (const [name, role] of [
    ['ow', 'owner'],
    ['ed', 'editor'],
    ['vi', 'viewer'],
  ] as const) {
    await engine.createPrincipal({ name, kind: 'agent' });
    await engine.setMember('demo', name, role);
  }
  await engine.setMember('other', 'ow', 'owner');
  await engine.writeFile('demo', '/notes.md', 'hello\n');
  const key = async (principal: string, more: Record<string, unknown> = {}) =>
    (await engine.createKey({ principal, ...more })).key;
  const revoked = await engine.createKey({ principal: 'ed' });
  await engine.revokeKey(revoked.info.id);
  const expired = await key('ed', { expiresInSeconds: 1 });
  const keys: Record<KeyKind, string | null> = {
    none: null,
    garbage: 'sk_garbage_0000000000000000000000000000000000000000',
    revoked: revoked.key,
    expired,
    viewer: await key('vi'),
    editor: await key('ed'),
    owner: await key('ow'),
    otherWorkspace: await key('ow', { workspaces: ['other'] }),
    pathPrefix: await key('ed', { pathPrefixes: [PREFIX] }),
    readOnly: await key('ow', { readOnly: true }),
  };
  // The expired key must be past its expiry before any test uses it.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const app = createApp(engine, { rateLimit: false, ...options });
  return {
    engine,
    app,
    admin,
    root: data,
    keys,
    request: async (method, path, { key: secret = admin, body, headers = {} } = {}) => {
      const all: Record<string, string> = { ...headers };
      if (secret !== null) all.Authorization = `Bearer ${secret}`;
      let payload: string | undefined;
      if (typeof body === 'string') payload = body;
      else if (body !== undefined) {
        payload = JSON.stringify(body);
        all['Content-Type'] ??= 'application/json';
      }
      return app.request(path, {
        method,
        headers: all,
        ...(payload === undefined ? {} : { body: payload }),
      });
    },
    close: async () => {
      await engine.close();
      await rm(data, { recursive: true, force: true });
    },
  };
}
