/** RFC 9457 problem details: the one place where an error becomes an HTTP response. */
import { type ErrorCode, SatchelError, toSatchelError } from '@satchel/core';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const TITLES: Readonly<Record<ErrorCode, string>> = {
  INVALID_INPUT: 'Invalid input',
  INVALID_PATH: 'Invalid path',
  UNAUTHENTICATED: 'Authentication required',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not found',
  CONFLICT: 'Conflict',
  REDACTED: 'Content redacted',
  PRECONDITION_FAILED: 'Precondition failed',
  TOO_LARGE: 'Content too large',
  LOCKED: 'Locked',
  RATE_LIMITED: 'Too many requests',
  QUOTA_EXCEEDED: 'Workspace quota exceeded',
  UNAVAILABLE: 'Service unavailable',
  INTEGRITY: 'Stored content failed its integrity check',
  INTERNAL: 'Internal server error',
};

/** Members of a problem that `data` may not override. */
const RESERVED = new Set(['type', 'title', 'status', 'detail', 'code', 'requestId']);

/**
 * A SatchelError raised by the HTTP layer itself, whose status is more specific than its code's
 * (405 and 416 are INVALID_INPUT to a client that only knows codes), optionally with headers
 * the status requires (`Allow`, `Content-Range`, `WWW-Authenticate`).
 */
export class HttpError extends SatchelError {
  readonly #status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      status?: number;
      data?: Readonly<Record<string, unknown>>;
      headers?: Readonly<Record<string, string>>;
    } = {},
  ) {
    super(code, message, options.data);
    this.#status = options.status ?? super.status;
    this.headers = options.headers ?? {};
  }

  override get status(): number {
    return this.#status;
  }
}

/** The JSON body of a problem response. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: ErrorCode;
  readonly requestId: string;
  readonly [extension: string]: unknown;
}

/** Receives faults the client cannot be told about (500s); default: logging.ts `faultLogger`. */
export type FaultLogger = (fault: {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly error: unknown;
}) => void;

/**
 * The problem for `error`: a SatchelError keeps its code, message and `data` (as extension
 * members); anything else is INTERNAL with a generic detail, so no message or stack of an
 * unexpected fault reaches the client. `status` is the HTTP status the response must carry.
 */
export function toProblem(error: unknown, requestId: string): Problem {
  const known = toSatchelError(error);
  const server = known.status >= 500;
  // Server faults are described generically: their messages may name files on the server.
  const detail = server
    ? `the server failed to complete the request; quote request id ${requestId} when reporting it`
    : known.message;
  const extensions = server ? {} : known.data;
  const problem: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(extensions)) {
    if (!RESERVED.has(key)) problem[key] = value;
  }
  return {
    type: `urn:satchel:error:${known.code}`,
    title: TITLES[known.code],
    status: known.status,
    detail,
    code: known.code,
    requestId,
    ...problem,
  };
}

/** Headers an error requires beside the problem body (`Allow`, `Content-Range`, …). */
export function problemHeaders(error: unknown): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': PROBLEM_CONTENT_TYPE };
  if (error instanceof HttpError) Object.assign(headers, error.headers);
  if (error instanceof SatchelError && error.code === 'UNAVAILABLE') {
    headers['Retry-After'] ??= String(error.data.retryAfter ?? 1);
  }
  if (error instanceof SatchelError && error.code === 'UNAUTHENTICATED') {
    headers['WWW-Authenticate'] ??= 'Bearer realm="satchel"';
  }
  // A 429 from the engine (e.g. the name-probe budget) says when to retry, as the HTTP one does.
  const retryAfter = error instanceof SatchelError ? error.data.retryAfter : undefined;
  if (
    error instanceof SatchelError &&
    error.code === 'RATE_LIMITED' &&
    typeof retryAfter === 'number'
  ) {
    headers['Retry-After'] ??= String(retryAfter);
  }
  return headers;
}

/** True for errors that are the server's fault and must be logged (they are not in the body). */
export function isFault(error: unknown): boolean {
  return toSatchelError(error).status >= 500;
}
