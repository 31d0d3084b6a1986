/** Test harness: the app over a real engine on a temp data directory, with keys for each role. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OpenSatchelOptions, openSatchel, type SatchelEngine } from '@satchel/core';
import type { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import { type ApiOptions, createApp } from '../app.js';

export interface Keys {
  /** The data directory's admin (owner of `demo`, which it created). */
  readonly admin: string;
  /** `ed`, editor of `demo`. */
  readonly editor: string;
  /** `vi`, viewer of `demo`. */
  readonly viewer: string;
  /** `st`, member of nothing. */
  readonly stranger: string;
}

type Body = NonNullable<RequestInit['body']>;

export interface RequestOptions {
  /** API key to send; default the admin's; null sends no Authorization header. */
  readonly key?: string | null;
  /** A plain object is sent as JSON; anything else as the raw body. */
  readonly body?: Body | Record<string, unknown> | unknown[];
  readonly headers?: Record<string, string>;
}

export interface Harness {
  readonly engine: SatchelEngine;
  readonly app: Hono<ApiEnv>;
  readonly keys: Keys;
  /** `app.request(path)` with the method, key, body and headers of `options`. */
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  close(): Promise<void>;
}

function isJson(body: RequestOptions['body']): body is Record<string, unknown> | unknown[] {
  return (
    body !== undefined &&
    body !== null &&
    typeof body === 'object' &&
    (Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype)
  );
}

/** Opens an engine on a fresh temp directory, creates workspace `demo` and one key per role. */
export async function createHarness(
  options: ApiOptions & { readonly limits?: OpenSatchelOptions['limits'] } = {},
): Promise<Harness> {
  const data = await mkdtemp(join(tmpdir(), 'satchel-api-'));
  const { limits, ...apiOptions } = options;
  const engine = await openSatchel({ data, ...(limits === undefined ? {} : { limits }) });
  const admin = engine.createdAdminKey;
  if (admin === null) throw new Error('a fresh data directory must create the admin key');
  await engine.createWorkspace('demo');
  const keyFor = async (name: string, role: 'editor' | 'viewer' | null) => {
    await engine.createPrincipal({ name, kind: 'agent' });
    if (role !== null) await engine.setMember('demo', name, role);
    return (await engine.createKey({ principal: name })).key;
  };
  const keys: Keys = {
    admin,
    editor: await keyFor('ed', 'editor'),
    viewer: await keyFor('vi', 'viewer'),
    stranger: await keyFor('st', null),
  };
  const app = createApp(engine, apiOptions);
  return {
    engine,
    app,
    keys,
    request: async (method, path, { key = admin, body, headers = {} } = {}) => {
      const all: Record<string, string> = { ...headers };
      if (key !== null) all.Authorization = `Bearer ${key}`;
      let payload: Body | undefined;
      if (isJson(body)) {
        payload = JSON.stringify(body);
        all['Content-Type'] ??= 'application/json';
      } else {
        payload = body;
      }
      return app.request(path, {
        method,
        headers: all,
        ...(payload === undefined ? {} : { body: payload }),
        // Required by fetch's Request for stream bodies.
        ...(payload instanceof ReadableStream ? { duplex: 'half' } : {}),
      });
    },
    close: async () => {
      await engine.close();
      await rm(data, { recursive: true, force: true });
    },
  };
}

/** The body of a problem response, typed loosely for assertions. */
export async function problemOf(res: Response): Promise<Record<string, unknown>> {
  expectProblem(res);
  return (await res.json()) as Record<string, unknown>;
}

function expectProblem(res: Response): void {
  const type = res.headers.get('Content-Type') ?? '';
  if (!type.startsWith('application/problem+json')) {
    throw new Error(`expected a problem response, got ${res.status} ${type}`);
  }
}
