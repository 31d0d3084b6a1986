/**
 * The HTTP side of RemoteSatchel: requests to the Satchel REST API (CONTRACT.md) with the bearer
 * key, and problem+json answers turned back into the SatchelError the engine would have thrown.
 */
import type { z } from 'zod';
import { ERROR_CODES, type ErrorCode, SatchelError } from '../errors.js';

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface RequestSpec {
  readonly method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';
  /** Below the server's URL, with every segment already percent-encoded (`segment()`). */
  readonly path: string;
  readonly query?: Query;
  /** Undefined values are left out. */
  readonly headers?: Readonly<Record<string, string | undefined>>;
  /** Sent as `application/json`. */
  readonly json?: unknown;
  /** Sent as raw bytes; a stream is sent as it is produced (chunked), never buffered. */
  readonly body?: string | Uint8Array | UploadStream;
}

export interface HttpOptions {
  readonly url: string;
  readonly token: string;
  readonly fetch?: typeof fetch;
}

/** Members of a problem body that are not the error's `data`. */
const PROBLEM_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'code', 'requestId']);

const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'INVALID_INPUT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'INVALID_INPUT',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'TOO_LARGE',
  416: 'INVALID_INPUT',
  423: 'LOCKED',
  429: 'RATE_LIMITED',
  503: 'UNAVAILABLE',
};

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && KNOWN_CODES.has(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `Satchel-Session: <label>` (nothing without a label), percent-encoded (`encodeURIComponent`),
 * which the API decodes: any label the engine accepts (1-200 characters) travels unchanged.
 * INVALID_INPUT for a label that is not well-formed Unicode (a lone surrogate).
 */
export function sessionHeader(label: string | undefined): Record<string, string | undefined> {
  if (label === undefined) return { 'Satchel-Session': undefined };
  try {
    return { 'Satchel-Session': encodeURIComponent(label) };
  } catch {
    throw new SatchelError('INVALID_INPUT', 'invalid session: not well-formed Unicode text', {
      field: 'session',
    });
  }
}

/** One path segment (a workspace name, a lock id, a path segment) for a URL. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

/** The message of a failed connection: the system error code when there is one (ECONNREFUSED). */
function reason(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof Error) {
    const code = 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
    return code === undefined || cause.message.includes(code)
      ? cause.message
      : `${code} ${cause.message}`;
  }
  return String(cause);
}

/**
 * A request body read from an async iterable as the connection asks for it: one piece in
 * flight, nothing buffered. Remembers an error of the source itself, so that it is reported as
 * what it is instead of as a failed connection.
 */
export class UploadStream {
  readonly stream: ReadableStream<Uint8Array>;
  failure: unknown = undefined;
  readonly #iterator: AsyncIterator<Uint8Array | string>;
  #finished = false;

  constructor(source: AsyncIterable<Uint8Array | string>) {
    const iterator = source[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    this.#iterator = iterator;
    this.stream = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          let next: IteratorResult<Uint8Array | string>;
          try {
            next = await iterator.next();
          } catch (error) {
            this.#finished = true;
            this.failure = error;
            throw error;
          }
          if (next.done) {
            this.#finished = true;
            controller.close();
          } else {
            const { value } = next;
            controller.enqueue(typeof value === 'string' ? encoder.encode(value) : value);
          }
        },
        cancel: () => this.discard(),
      },
      { highWaterMark: 0 },
    );
  }

  /**
   * Releases the source (a file stream closes) when the server answered before reading all of
   * it, a refusal: fetch stops pulling but does not cancel a body it no longer needs.
   */
  async discard(): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    await this.#iterator.return?.();
  }
}

/** The transport of RemoteSatchel: one method per way of reading an answer. */
export class HttpClient {
  readonly url: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;

  constructor(options: HttpOptions) {
    let base: URL;
    try {
      base = new URL(options.url);
    } catch {
      throw new SatchelError('INVALID_INPUT', `invalid server URL ${JSON.stringify(options.url)}`, {
        field: 'url',
      });
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new SatchelError(
        'INVALID_INPUT',
        `the server URL must be http or https: ${options.url}`,
        {
          field: 'url',
        },
      );
    }
    this.url = base.href.replace(/\/+$/, '');
    this.#token = options.token;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /**
   * Sends a request and resolves with a 2xx response (its body not yet read). Anything else
   * throws: a problem+json answer as the SatchelError it describes; a connection that fails as
   * INTERNAL "cannot reach <url>: …".
   */
  async send(spec: RequestSpec): Promise<Response> {
    const upload = spec.body instanceof UploadStream ? spec.body : undefined;
    const res = await this.#fetchOnce(spec);
    if (res.ok) return res;
    await upload?.discard();
    if (spec.method === 'HEAD') {
      // A HEAD answer has no body: ask again with GET to learn the problem it describes.
      const again = await this.#fetchOnce({ ...spec, method: 'GET' });
      if (!again.ok) throw await this.#problem(spec, again);
      await again.body?.cancel();
    }
    throw await this.#problem(spec, res);
  }

  async #fetchOnce(spec: RequestSpec): Promise<Response> {
    const target = new URL(`${this.url}${spec.path}`);
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) target.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { Authorization: `Bearer ${this.#token}` };
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      if (value !== undefined) headers[name] = value;
    }
    let body: string | Uint8Array | ReadableStream<Uint8Array> | undefined;
    if (spec.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(spec.json);
    } else if (spec.body !== undefined) {
      headers['Content-Type'] = 'application/octet-stream';
      body = spec.body instanceof UploadStream ? spec.body.stream : spec.body;
    }
    const request = () =>
      this.#fetch(target, {
        method: spec.method,
        headers,
        ...(body === undefined ? {} : { body }),
        // Required by fetch to send a stream as the request body.
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
      });
    try {
      try {
        return await request();
      } catch (error) {
        // A kept-alive connection the server closed as the request went out (its idle timeout
        // while this process was busy): a read is sent again, once, on a new connection.
        if (body !== undefined || !(spec.method === 'GET' || spec.method === 'HEAD')) throw error;
        if (!closedByServer(error)) throw error;
        return await request();
      }
    } catch (error) {
      if (spec.body instanceof UploadStream) {
        if (spec.body.failure !== undefined) throw spec.body.failure;
        await spec.body.discard();
      }
      throw new SatchelError(
        'INTERNAL',
        `cannot reach ${this.url}: ${reason(error)}`,
        {},
        {
          cause: error,
        },
      );
    }
  }

  /** A 2xx JSON answer, checked against `schema` (INTERNAL when the server sent something else). */
  async json<S extends z.ZodType>(schema: S, spec: RequestSpec): Promise<z.infer<S>> {
    const res = await this.send(spec);
    let value: unknown;
    try {
      value = await res.json();
    } catch (error) {
      throw this.#broken(spec, `its body is not JSON (${reason(error)})`, error);
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const at = issue?.path.map(String).join('.') || 'body';
    throw this.#broken(spec, `${at}: ${issue?.message ?? 'unexpected value'}`, parsed.error);
  }

  /** A 2xx answer whose body does not matter (204). */
  async empty(spec: RequestSpec): Promise<void> {
    const res = await this.send(spec);
    await res.body?.cancel();
  }

  /** Reads the body of a stream answer, turning a connection lost midway into INTERNAL. */
  async *pieces(res: Response): AsyncGenerator<Uint8Array> {
    const body = res.body;
    if (body === null) return;
    const reader = body.getReader();
    try {
      for (;;) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (error) {
          throw new SatchelError(
            'INTERNAL',
            `lost the connection to ${this.url} while reading: ${reason(error)}`,
            {},
            { cause: error },
          );
        }
        if (next.done) return;
        yield next.value;
      }
    } finally {
      // Stopped early (the consumer destroyed the stream): stop the download too.
      await reader.cancel().catch(() => undefined);
    }
  }

  #broken(spec: RequestSpec, what: string, cause: unknown): SatchelError {
    return new SatchelError(
      'INTERNAL',
      `unexpected answer from ${this.url} to ${spec.method} ${spec.path}: ${what}`,
      {},
      { cause },
    );
  }

  async #problem(spec: RequestSpec, res: Response): Promise<SatchelError> {
    const type = res.headers.get('Content-Type') ?? '';
    const body: unknown = type.includes('json') ? await res.json().catch(() => null) : null;
    if (body === null) await res.body?.cancel().catch(() => undefined);
    if (isRecord(body) && isErrorCode(body.code)) {
      const data: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(body)) {
        if (!PROBLEM_MEMBERS.has(key)) data[key] = value;
      }
      // The API's own 404 (no such route) and 405: this client and the server disagree.
      if ((body.code === 'NOT_FOUND' && 'route' in data) || res.status === 405) {
        return new SatchelError(
          'INTERNAL',
          `the server at ${this.url} does not support ${spec.method} ${spec.path}; ` +
            'it may be older than this client',
          { status: res.status, reason: 'unsupported_route' },
        );
      }
      const detail = typeof body.detail === 'string' ? body.detail : `HTTP ${res.status}`;
      return new SatchelError(body.code, detail, data);
    }
    // Not a problem body: a proxy's error page, or HEAD (whose answers have no body).
    const code = CODE_OF_STATUS[res.status] ?? 'INTERNAL';
    return new SatchelError(
      code,
      `${spec.method} ${this.url}${spec.path} failed: HTTP ${res.status}${res.statusText === '' ? '' : ` ${res.statusText}`}`,
      { status: res.status },
    );
  }
}

/** The error fetch gives when the server closed the connection the request was sent on. */
function closedByServer(error: unknown): boolean {
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
}
