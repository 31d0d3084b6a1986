/** The one error type of Satchel: a stable `code` from a closed set, a message for people, and `data` for programs. */

/** Codes and the HTTP status each maps to (DESIGN.md, Errors). */
export const ERROR_STATUS = {
  INVALID_INPUT: 400,
  INVALID_PATH: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  /** The version's content was redacted by an owner: removed for good, its metadata kept. */
  REDACTED: 410,
  PRECONDITION_FAILED: 412,
  TOO_LARGE: 413,
  LOCKED: 423,
  RATE_LIMITED: 429,
  /** A workspace quota (bytes or files) would be exceeded; `data` names the usage and the limit. */
  QUOTA_EXCEEDED: 413,
  /** The database or content store cannot be reached; worth retrying later (Retry-After). */
  UNAVAILABLE: 503,
  /** Stored content no longer matches its hash: a server-side fault, never returned as data. */
  INTEGRITY: 500,
  /** An unexpected fault (a bug or the environment); never used for a client's mistake. */
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export class SatchelError extends Error {
  override readonly name = 'SatchelError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data: Readonly<Record<string, unknown>> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toJSON(): { code: ErrorCode; message: string; data: Readonly<Record<string, unknown>> } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

export function isSatchelError(error: unknown, code?: ErrorCode): error is SatchelError {
  return error instanceof SatchelError && (code === undefined || error.code === code);
}

/** Wraps anything thrown into a SatchelError; unknown faults become INTERNAL, never a client code. */
export function toSatchelError(error: unknown): SatchelError {
  if (error instanceof SatchelError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SatchelError('INTERNAL', `internal error: ${message}`, {}, { cause: error });
}
