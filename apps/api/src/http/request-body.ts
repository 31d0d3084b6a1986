/**
 * The request body, read once through `c.get('body')`: straight from the socket when served by
 * @hono/node-server (`c.env.incoming`), from the fetch Request otherwise (`app.request()`).
 * Its bytes are counted as they are read (the access log and metrics), and a client that leaves
 * the reader waiting `idleSeconds` for the next piece gets 408 (an idle timeout, not a
 * whole-request one: an upload of gigabytes over a slow link may take hours, but never stalls
 * for long). A route that reads the body this way builds no fetch Request and no web stream: on
 * a 4 KiB PUT those were a fifth of the server's CPU.
 *
 * A reader that stops early (a body over its limit, a timeout) stops reading and leaves the
 * rest to @hono/node-server, which drains it after the response (or closes the connection):
 * destroying the request would take the socket, and the answer, with it.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../api-env.js';
import { HttpError } from '../problem.js';

function idleError(seconds: number): HttpError {
  return new HttpError(
    'INVALID_INPUT',
    `the request body stopped arriving: no bytes for ${seconds} s (body idle timeout)`,
    { status: 408, data: { idleTimeoutSeconds: seconds }, headers: { Connection: 'close' } },
  );
}

/** One piece at a time from a source; `stop` gives up on the rest. */
interface Pull {
  next(): Promise<Uint8Array | null>;
  stop(): void;
}

const NOTHING: Pull = { next: async () => null, stop: () => undefined };

/** The next piece of `incoming` in paused mode, or null at its end; no listener outlives it. */
function fromIncoming(incoming: IncomingMessage): Pull {
  let cleanup = (): void => undefined;
  const next = (): Promise<Uint8Array | null> => {
    const piece = incoming.read() as Buffer | null;
    if (piece !== null) return Promise.resolve(piece);
    if (incoming.readableEnded) return Promise.resolve(null);
    if (incoming.destroyed) return Promise.reject(cut());
    return new Promise((resolve, reject) => {
      const settle = (then: () => void) => () => {
        cleanup();
        then();
      };
      const onReadable = settle(() => next().then(resolve, reject));
      const onEnd = settle(() => resolve(null));
      const onError = (error: Error) => settle(() => reject(error))();
      const onClose = settle(() => (incoming.readableEnded ? resolve(null) : reject(cut())));
      incoming.on('readable', onReadable);
      incoming.on('end', onEnd);
      incoming.on('error', onError);
      incoming.on('close', onClose);
      cleanup = () => {
        incoming.off('readable', onReadable);
        incoming.off('end', onEnd);
        incoming.off('error', onError);
        incoming.off('close', onClose);
        cleanup = () => undefined;
      };
    });
  };
  return { next, stop: () => cleanup() };
}

function cut(): Error {
  return Object.assign(new Error('the client closed the connection mid-body'), {
    code: 'ECONNRESET',
  });
}

function fromWeb(body: ReadableStream<Uint8Array>): Pull {
  const reader = body.getReader();
  return {
    next: async () => {
      const { done, value } = await reader.read();
      return done ? null : value;
    },
    stop: () => {
      reader.cancel().catch(() => undefined);
    },
  };
}

export class RequestBody {
  /** Bytes read so far. */
  bytes = 0;
  #taken = false;

  constructor(
    private readonly c: Context<ApiEnv>,
    private readonly idleSeconds: number,
  ) {}

  /** The body's pieces as they arrive (none for GET and HEAD). It can be read once. */
  stream(): AsyncIterable<Uint8Array> {
    if (this.#taken) throw new Error('the request body was read already');
    this.#taken = true;
    const { c } = this;
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return this.#guarded(NOTHING);
    const incoming = c.env?.incoming as IncomingMessage | undefined;
    if (incoming !== undefined) return this.#guarded(fromIncoming(incoming));
    const body = c.req.raw.body;
    return this.#guarded(body === null ? NOTHING : fromWeb(body));
  }

  /** The request as a fetch Request whose body is `stream()`, for handlers that take one. */
  request(): Request {
    const raw = this.c.req.raw;
    if (raw.method === 'GET' || raw.method === 'HEAD') return raw;
    return new Request(raw.url, {
      method: raw.method,
      headers: raw.headers,
      body: ReadableStream.from(this.stream()),
      signal: raw.signal,
      // Required by fetch for stream bodies.
      duplex: 'half',
    } as RequestInit);
  }

  async *#guarded(pull: Pull): AsyncGenerator<Uint8Array> {
    const seconds = this.idleSeconds;
    let finished = false;
    try {
      for (;;) {
        let timer: NodeJS.Timeout | undefined;
        const idle = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(idleError(seconds)), seconds * 1000);
        });
        let piece: Uint8Array | null;
        try {
          piece = await Promise.race([pull.next(), idle]);
        } finally {
          clearTimeout(timer);
        }
        if (piece === null) {
          finished = true;
          return;
        }
        this.bytes += piece.byteLength;
        yield piece;
      }
    } finally {
      if (!finished) pull.stop();
    }
  }
}

/** Gives every request its RequestBody (`c.get('body')`), idle after `idleSeconds`. */
export function requestBodies(idleSeconds: number): MiddlewareHandler<ApiEnv> {
  return async function requestBodies(c, next) {
    c.set('body', new RequestBody(c, idleSeconds));
    await next();
  };
}
