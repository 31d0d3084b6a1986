/**
 * Which `pg` errors mean "the database cannot be reached now" (retry) rather than a fault: the
 * connection refused, reset or timed out, or the server shutting down, starting or in recovery.
 */

/** Node socket errors of a refused, reset or timed-out connection. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATE classes and codes: 08 connection exception; 57P01 admin_shutdown, 57P02
 * crash_shutdown, 57P03 cannot_connect_now (starting up or in recovery); 53300 too many
 * connections.
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Messages `pg` uses for a connection that ended under it (no code is set on these). */
const LOST = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection error and is not queryable/i,
];

export function pgUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || SQLSTATES.has(code) || code.startsWith('08')) return true;
  }
  if (LOST.some((pattern) => pattern.test(error.message))) return true;
  // AggregateError (every address refused) and errors wrapping a cause.
  const inner = (error as { errors?: unknown[]; cause?: unknown }).errors ?? [];
  return [...inner, (error as { cause?: unknown }).cause].some(
    (e) => e !== undefined && e !== error && pgUnavailable(e),
  );
}
