/** Structured logs (pino): the default logger of an app and faults as error lines. */
import { type Logger, pino } from 'pino';
import type { FaultLogger } from './problem.js';

/**
 * What an app logs to when given no logger: pino at `warn` on stderr, written synchronously, so
 * library users and tests see faults (not access lines) in order with their own output.
 */
export function defaultLogger(): Logger {
  return pino({ level: 'warn' }, pino.destination({ fd: 2, sync: true }));
}

/** The levels a logger may be set to, quietest last. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * A JSON-lines logger at `level` writing to `destination` (e.g. process.stdout): what `satchel
 * serve` passes as `ApiOptions.logger`, so it needs no logging library of its own.
 */
export function createLogger(
  level: LogLevel,
  destination: { write(line: string): unknown },
): Logger {
  return pino({ level }, destination);
}

/**
 * Faults (500s) as one `error` line with the request id, method, path and the error with its
 * stack (pino's `err` serializer). The stack goes to the log only; the client sees a generic
 * problem that quotes the request id.
 */
export function faultLogger(logger: Logger): FaultLogger {
  return ({ requestId, method, path, error }) => {
    logger.error({ requestId, method, path, err: error }, 'request failed');
  };
}
