/**
 * Streamable HTTP: `createMcpHttpHandler` answers `/mcp` requests that the API server already
 * authenticated (bearer key → a Satchel acting as the key). Stateful: `initialize` opens a
 * session (its own McpServer and transport, `Mcp-Session-Id`) that later requests must present
 * with the same key; sessions carry resource subscriptions (over the GET event stream). Browsers'
 * requests from foreign origins, and requests naming a foreign Host, are refused (DNS-rebinding
 * defence).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isSatchelError, type Satchel } from '@satchel/core';
import { createMcpServer, type McpServerOptions } from './server.js';

export interface McpHttpOptions extends McpServerOptions {
  /**
   * Origins (`scheme://host[:port]`) allowed besides loopback ones (localhost, 127.0.0.1, [::1]
   * on any port). Requests without an Origin header (non-browser clients) are always allowed.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Names the `Host` header may carry besides loopback ones (localhost, 127.0.0.1, [::1], any
   * port): `name` (any port) or `name:port`, e.g. the public name of a server behind a proxy.
   * Any other Host is refused with 403 (DNS rebinding: a page whose name was re-pointed at this
   * server still sends its own name as Host).
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Open sessions at most, all keys together. When full, a new session is refused (503 with
   * Retry-After); no key's session is ever closed to make room for another key's. Default 1000.
   */
  readonly maxSessions?: number;
  /**
   * Open sessions per key: a key that opens one more closes its own least recently used
   * session (its client re-initialises). Default 10.
   */
  readonly maxSessionsPerKey?: number;
  /** A session unused this long is closed (its client re-initialises). Default 30 min. */
  readonly idleSeconds?: number;
  /**
   * How often each session's key is authenticated again (when the mount passes
   * `reauthenticate`): a session whose key was revoked or expired is closed, which ends its GET
   * event stream. One key lookup per session per interval. Default 5 s.
   */
  readonly accessRecheckSeconds?: number;
}

/** Authenticates the request's key again: rejects (UNAUTHENTICATED) once it is revoked or expired. */
export type Reauthenticate = () => Promise<Satchel>;

/** `(request, satchel, reauthenticate?) => response` for `/mcp`, plus `close()` for shutdown. */
export interface McpHttpHandler {
  (request: Request, satchel: Satchel, reauthenticate?: Reauthenticate): Promise<Response>;
  /** Closes every session (ends their event streams); later requests are answered 503. */
  close(): Promise<void>;
  /** Sessions currently open. */
  readonly sessions: number;
}

interface Session {
  readonly server: McpServer;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** SHA-256 of the Authorization header that opened it. */
  readonly key: string;
  /** Checks that key again (absent: the mount cannot, and the session is never re-checked). */
  readonly reauthenticate: Reauthenticate | undefined;
  lastUsed: number;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function rpcError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(
    JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }),
    { status, headers: { 'Content-Type': 'application/json', ...headers } },
  );
}

/** True for a request with no Origin, a loopback Origin, or one of `allowed`. */
export function originAllowed(origin: string | null, allowed: ReadonlySet<string>): boolean {
  if (origin === null) return true;
  if (allowed.has(origin)) return true;
  try {
    const url = new URL(origin);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname)
    );
  } catch {
    return false;
  }
}

/** `host[:port]` as hostname (IPv6 in brackets) and port ('' when absent); null if malformed. */
function splitHost(host: string): { hostname: string; port: string } | null {
  try {
    const url = new URL(`http://${host.trim()}`);
    if (url.username !== '' || url.password !== '' || url.pathname !== '/') return null;
    // `new URL` drops :80 as the default port; keep what was sent.
    const port = /:(\d+)$/.exec(host.trim())?.[1] ?? '';
    return { hostname: url.hostname, port };
  } catch {
    return null;
  }
}

/**
 * True when the `Host` header names a loopback host (any port) or an entry of `allowed`
 * (`name` matches any port, `name:port` only that port). Without a Host header: false.
 */
export function hostAllowed(host: string | null, allowed: readonly string[]): boolean {
  const sent = host === null ? null : splitHost(host);
  if (sent === null) return false;
  if (LOOPBACK_HOSTS.has(sent.hostname)) return true;
  return allowed.some((entry) => {
    const wanted = splitHost(entry);
    return (
      wanted !== null &&
      wanted.hostname === sent.hostname &&
      (wanted.port === '' || wanted.port === sent.port)
    );
  });
}

function keyOf(request: Request): string {
  return createHash('sha256')
    .update(request.headers.get('Authorization') ?? '')
    .digest('hex');
}

/**
 * The handler of `/mcp`. Mount it behind the API's bearer authentication (apps/api passes the
 * Satchel acting as the key): a session opened with one key answers 404 to any other key.
 * Refuses a foreign `Origin`, and a `Host` that is not loopback nor in `allowedHosts`, with 403.
 */
export function createMcpHttpHandler(options: McpHttpOptions = {}): McpHttpHandler {
  const allowed = new Set(options.allowedOrigins ?? []);
  const allowedHosts = options.allowedHosts ?? [];
  const maxSessions = options.maxSessions ?? 1000;
  const maxPerKey = options.maxSessionsPerKey ?? 10;
  const idleMs = (options.idleSeconds ?? 30 * 60) * 1000;
  const sessions = new Map<string, Session>();
  let closed = false;

  const drop = async (id: string): Promise<void> => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.server.close().catch(() => undefined);
  };

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (now - session.lastUsed > idleMs) void drop(id);
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  // Open GET streams deliver notifications without any request to authenticate: check each
  // session's key on an interval instead, and close the sessions whose key no longer works.
  const recheck = setInterval(
    () => {
      for (const [id, session] of sessions) {
        session.reauthenticate?.().catch((error: unknown) => {
          if (isSatchelError(error, 'UNAUTHENTICATED')) void drop(id);
        });
      }
    },
    (options.accessRecheckSeconds ?? 5) * 1000,
  );
  recheck.unref();

  const open = async (
    request: Request,
    satchel: Satchel,
    reauthenticate: Reauthenticate | undefined,
  ): Promise<Response> => {
    const key = keyOf(request);
    // Only this key's own sessions make room for it: one key must not evict another's.
    const own = [...sessions.entries()]
      .filter(([, session]) => session.key === key)
      .sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [id] of own.slice(0, Math.max(0, own.length - maxPerKey + 1))) await drop(id);
    if (sessions.size >= maxSessions) {
      return rpcError(503, 'too many open sessions on this server; retry later', {
        'Retry-After': '60',
      });
    }
    // Signed URLs without SATCHEL_PUBLIC_URL are relative: complete them with the origin reached.
    const server = await createMcpServer(satchel, {
      ...options,
      baseUrl: new URL(request.url).origin,
    });
    let opened = false;
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          opened = true;
          sessions.set(id, { server, transport, key, reauthenticate, lastUsed: Date.now() });
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      });
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    // Anything but a successful initialize leaves no session behind.
    if (!opened) await server.close().catch(() => undefined);
    return response;
  };

  const handler = async (
    request: Request,
    satchel: Satchel,
    reauthenticate?: Reauthenticate,
  ): Promise<Response> => {
    if (closed) return rpcError(503, 'the server is shutting down');
    const host = request.headers.get('Host');
    if (!hostAllowed(host, allowedHosts)) {
      return rpcError(
        403,
        `host ${host} is not allowed: this server answers to loopback names only`,
      );
    }
    if (!originAllowed(request.headers.get('Origin'), allowed)) {
      return rpcError(403, `origin ${request.headers.get('Origin')} is not allowed`);
    }
    const id = request.headers.get('Mcp-Session-Id');
    if (id === null) return open(request, satchel, reauthenticate);
    const session = sessions.get(id);
    // Another key's session is as unknown as an expired one: the client re-initialises.
    if (!session || session.key !== keyOf(request)) return rpcError(404, 'session not found');
    session.lastUsed = Date.now();
    return session.transport.handleRequest(request);
  };

  // defineProperty, not Object.assign: assign would copy the getter's value once, not the getter.
  return Object.defineProperties(handler, {
    close: {
      value: async (): Promise<void> => {
        closed = true;
        clearInterval(sweep);
        clearInterval(recheck);
        await Promise.all([...sessions.keys()].map(drop));
      },
    },
    sessions: { get: (): number => sessions.size },
  }) as McpHttpHandler;
}
