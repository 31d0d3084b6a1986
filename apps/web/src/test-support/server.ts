/**
 * A real Satchel for the web app's tests: an engine on a temp data directory, served over HTTP
 * on 127.0.0.1 by the API with the web app mounted at `/` (as `satchel serve` does), with the
 * user alice and the agent builder, who owns the workspace `report` and made alice a member.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, serve } from '@satchel/api';
import { openSatchel, type Satchel, type SatchelEngine } from '@satchel/core';
import { createMcpHttpHandler } from '@satchel/mcp';
import { type WebOptions, webApp } from '../web-app.js';

export interface WebFixture {
  readonly engine: SatchelEngine;
  readonly server: RunningServer;
  readonly url: string;
  /** The agent that writes the workspace, acting with its own API key. */
  readonly builder: Satchel;
  readonly builderKey: string;
  /** A fresh one-time sign-in URL for `principal` (default alice). */
  loginUrl(principal?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startWeb(
  options: WebOptions = {},
  engineOptions: { readonly clock?: () => number } = {},
): Promise<WebFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'satchel-web-'));
  const engine = await openSatchel({ data: join(dir, 'data'), ...engineOptions });
  const web = webApp(engine, { logFault: () => undefined, ...options });
  // `/mcp` too, as `satchel serve` mounts it: agents write over MCP, people read on the web.
  const mcp = createMcpHttpHandler();
  const server = await serve(engine, {
    port: 0,
    api: { web: (request) => web.fetch(request), mcp, rateLimit: false },
  });
  await engine.createPrincipal({ name: 'alice', kind: 'user' });
  await engine.createPrincipal({ name: 'bob', kind: 'user' });
  await engine.createPrincipal({ name: 'builder', kind: 'agent' });
  const { key: builderKey } = await engine.createKey({ principal: 'builder' });
  const builder = engine.as(await engine.authenticate(builderKey));
  await builder.createWorkspace('report');
  await engine.setMember('report', 'alice', 'editor');
  return {
    engine,
    server,
    url: server.url,
    builder,
    builderKey,
    loginUrl: async (principal = 'alice') =>
      `${server.url}${(await engine.createLoginLink({ principal })).url}`,
    close: async () => {
      await mcp.close();
      await server.close();
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A browser-like HTTP client: keeps the session cookie, sends the Origin a browser would. */
export class TestBrowser {
  cookie: string | null = null;
  constructor(private readonly base: string) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.base}${path}`, {
      redirect: 'manual',
      headers: { ...headers, ...(this.cookie ? { Cookie: this.cookie } : {}) },
    });
  }

  async post(
    path: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const response = await fetch(`${this.base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams(form),
      headers: {
        Origin: this.base,
        ...headers,
        ...(this.cookie ? { Cookie: this.cookie } : {}),
      },
    });
    const set = response.headers.get('Set-Cookie');
    if (set !== null) {
      const [pair = ''] = set.split(';');
      this.cookie = /=$/.test(pair) || /Max-Age=0/i.test(set) ? null : pair;
    }
    return response;
  }

  /** Signs in with a login URL the way the page does: the link's form, posted. */
  async signIn(loginUrl: string): Promise<Response> {
    const token = new URL(loginUrl).searchParams.get('token') ?? '';
    return this.post('/login', { token });
  }

  /** The CSRF token of the signed-in page at `path`. */
  async csrf(path = '/sessions'): Promise<string> {
    const html = await (await this.get(path)).text();
    const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (token === undefined) throw new Error(`no CSRF token on ${path}`);
    return token;
  }
}
