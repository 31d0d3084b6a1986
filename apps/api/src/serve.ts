/** `serve`: the API on a Node HTTP server with a draining close; used by `satchel serve` and tests. */
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type {
  GcScheduleOptions,
  SatchelEngine,
  WebhookDispatcher,
  WebhookDispatchOptions,
} from '@satchel/core';
import { type ApiOptions, createApp } from './app.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;

export interface ServeOptions {
  /** Interface to bind; default 127.0.0.1 (loopback only). */
  readonly host?: string;
  /** Port to bind; default 8787; 0 picks a free one (see `RunningServer.port`). */
  readonly port?: number;
  /** Options of the app; its `signal` is the server's own shutdown signal. */
  readonly api?: Omit<ApiOptions, 'signal'>;
  /**
   * Seconds a client has to send a request's headers (from the connection's first byte, however
   * slowly they trickle); then 408 and the connection is closed. Default 30.
   */
  readonly headerTimeoutSeconds?: number;
  /** How long `close()` lets in-flight requests finish before cutting connections. Default 10 s. */
  readonly drainMs?: number;
  /**
   * Deliver webhooks from this server (docs/webhooks.md): started with it, stopped when it
   * closes; its queue depth feeds /metrics. Absent: this server delivers none.
   */
  readonly webhooks?: WebhookDispatchOptions;
  /**
   * Collect garbage on a schedule from this server (docs/storage.md, Garbage collection):
   * started with it, stopped when it closes. Absent: this server collects none.
   */
  readonly gc?: GcScheduleOptions;
}

export interface RunningServer {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  readonly port: number;
  /** The webhook dispatcher, when `webhooks` was given. */
  readonly webhooks: WebhookDispatcher | null;
  /**
   * Stops accepting connections, ends change-feed streams and long polls, lets other requests
   * in flight finish for up to `drainMs`, then cuts what is left, then stops webhook delivery
   * (attempts in flight are recorded). Does not close the engine
   * (its owner does, after this resolves). Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

/**
 * Serves `createApp(engine)` on `host:port` and resolves once it is listening (rejects if the
 * port cannot be bound, e.g. EADDRINUSE). Node's whole-request timeout is off, because an upload
 * of gigabytes over a slow link legitimately takes longer than any fixed bound; what bounds a
 * slow client instead is the header timeout (`headerTimeoutSeconds`) and the app's idle timeout
 * between body chunks (`ApiOptions.bodyIdleTimeoutSeconds`). A socket timeout would not do: it
 * would also cut lock waits and long polls, where neither side sends for a while by design.
 */
export async function serve(
  engine: SatchelEngine,
  options: ServeOptions = {},
): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  const shutdown = new AbortController();
  const webhooks = options.webhooks === undefined ? null : engine.startWebhooks(options.webhooks);
  const gc = options.gc === undefined ? null : engine.startGc(options.gc);
  const app = createApp(engine, {
    ...(webhooks === null ? {} : { webhookQueueDepth: () => webhooks.queueDepth() }),
    ...options.api,
    signal: shutdown.signal,
  });
  const headersTimeout = (options.headerTimeoutSeconds ?? 30) * 1000;
  const server = createServer(
    {
      requestTimeout: 0,
      headersTimeout,
      // Node checks the header deadline on this interval (default 30 s, which would let a
      // trickle run for up to the timeout plus 30 s).
      connectionsCheckingInterval: Math.min(1000, headersTimeout),
    },
    getRequestListener(app.fetch),
  );
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? DEFAULT_PORT, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await webhooks?.stop();
    await gc?.stop();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | null = null;
  const close = async (): Promise<void> => {
    shutdown.abort();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Connections that finish their response while draining go idle: close them as they do.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), options.drainMs ?? 10_000);
    server.closeIdleConnections();
    try {
      await closed;
    } finally {
      clearInterval(sweep);
      clearTimeout(cut);
    }
    // Before the engine closes (its owner closes it once this resolves).
    await webhooks?.stop();
    await gc?.stop();
  };
  return {
    url,
    port,
    webhooks,
    close: () => {
      closing ??= close();
      return closing;
    },
  };
}
