/** The one place where errors become exit codes and the one-line messages people read. */
import { type ErrorCode, SatchelError } from '@satchel/client/errors.js';
import { shortTime } from './format.js';

/** Exit codes by error code (docs/cli.md lists them; scripts rely on them). */
export const EXIT_CODES: Readonly<Record<ErrorCode, number>> = {
  INVALID_INPUT: 2,
  INVALID_PATH: 2,
  NOT_FOUND: 3,
  REDACTED: 3,
  CONFLICT: 4,
  PRECONDITION_FAILED: 4,
  LOCKED: 4,
  UNAUTHENTICATED: 5,
  FORBIDDEN: 5,
  TOO_LARGE: 6,
  QUOTA_EXCEEDED: 6,
  RATE_LIMITED: 7,
  INTEGRITY: 8,
  UNAVAILABLE: 9,
  INTERNAL: 1,
};

export const EXIT_OK = 0;
export const EXIT_INTERNAL = 1;
export const EXIT_USAGE = 2;
export const EXIT_DAMAGED = 8;

/** A usage mistake the CLI itself detects; `hint` says how to fix it. Exit 2. */
export function usageError(message: string, hint?: string): SatchelError {
  return new SatchelError('INVALID_INPUT', message, hint === undefined ? {} : { hint });
}

/** Errors of the local file system (put/get), in the same vocabulary as the engine's. */
export function localFileError(error: unknown, path: string): unknown {
  if (!(error instanceof Error) || !('code' in error)) return error;
  switch (error.code) {
    case 'ENOENT':
      return new SatchelError('NOT_FOUND', `local file ${path} not found`, { local: path });
    case 'EISDIR':
      return new SatchelError('INVALID_INPUT', `local path ${path} is a directory`, {
        local: path,
      });
    case 'ENOTDIR':
      return new SatchelError('INVALID_INPUT', `local path ${path} is not inside a directory`, {
        local: path,
      });
    case 'EACCES':
    case 'EPERM':
      return new SatchelError('FORBIDDEN', `permission denied on local path ${path}`, {
        local: path,
      });
    default:
      return error;
  }
}

/** Core option fields as the CLI flags that set them, for INVALID_INPUT hints. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  ttlSeconds: '--ttl must be from 1s to 1h',
  waitSeconds: '--wait must be at most 5m',
  expiresInHours: '--expires-in must be at most 30d',
  expiresInSeconds: '--expires-in must be a positive duration',
};

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

function lockedHint(data: Record<string, unknown>, command: string): string {
  if (data.reason === 'stale_token') {
    return 'your lock expired or was released; acquire it again (`satchel lock PATH`) and use the new token';
  }
  const holder = text(data.holder);
  const until = text(data.expiresAt);
  if (holder === undefined) {
    return 'earlier requests are waiting for this lock; retry later, or pass a longer --wait';
  }
  const held = `${holder} holds it${until === undefined ? '' : ` until ${shortTime(until)}`}`;
  if (command === 'lock') return `${held}; pass --wait 30s to wait for it`;
  const lockId = text(data.lockId);
  const breakIt =
    lockId === undefined ? '' : `, or an owner can break it: \`satchel unlock ${lockId} --break\``;
  return `${held}; retry when it is released or expires${breakIt}`;
}

function forbiddenHint(data: Record<string, unknown>): string | undefined {
  switch (data.reason) {
    case 'read_only':
      return 'the key is read-only; use a key that may write';
    case 'role':
      return (
        `an owner can grant it with \`satchel members add NAME ${text(data.needed) ?? 'editor'}\`` +
        ' (unless the key’s role ceiling is lower)'
      );
    case 'path_prefix':
      return 'the key may change only beneath its path prefixes (see `satchel keys ls`)';
    case 'not_admin':
      return 'only the admin may do this; run it without --as (local commands act as the admin)';
    case 'key_scope':
      return 'a key can create or reach only what its own narrowing allows';
    case 'not_recipient':
      return 'the offer names another principal; accept it as them (--as THEIR_KEY)';
    default:
      if (typeof data.lockId === 'string') {
        return `an owner can break it: \`satchel unlock ${data.lockId} --break\``;
      }
      return undefined;
  }
}

function notFoundHint(error: SatchelError, command: string): string | undefined {
  const { data } = error;
  if (typeof data.workspace === 'string') {
    return 'list workspaces with `satchel ws ls`, create one with `satchel ws create NAME`';
  }
  if (typeof data.local === 'string') return undefined;
  if ('lockId' in data) return 'list live locks with `satchel locks`';
  if (typeof data.key === 'string') return 'list keys with `satchel keys ls`';
  if (typeof data.transfer === 'string') return 'list open offers with `satchel transfer ls`';
  if (typeof data.invitation === 'string') {
    return 'list your pending invitations with `satchel invitations ls`; ask the owner to invite you again';
  }
  if (command === 'transfer accept') return 'ask the owner for a new claim code';
  if (typeof data.principal === 'string') {
    return command === 'members rm'
      ? 'list members with `satchel members ls`'
      : 'list principals with `satchel principals ls`, create one with `satchel principals create NAME`';
  }
  if (typeof data.seq === 'number' || /version/.test(error.message)) {
    return 'list the versions with `satchel log PATH`';
  }
  return 'see what exists with `satchel ls -r`';
}

/** Where the key came from: SATCHEL_TOKEN when talking to a server (SATCHEL_URL), else --as. */
function unauthenticatedHint(remote: boolean): string {
  return remote
    ? 'check SATCHEL_TOKEN: the server at SATCHEL_URL does not accept it (unknown, revoked or expired)'
    : 'check the key given to --as; the admin lists keys with `satchel keys ls --all`';
}

/** What to check when something Satchel depends on did not answer: the service that failed. */
function unavailableHint(data: Record<string, unknown>, remote: boolean): string {
  if (data.provider === 'codesandbox') {
    return 'check the network and CSB_API_KEY (CodeSandbox did not answer), then retry';
  }
  // From a server, UNAVAILABLE is its 503: it runs, but its own storage did not answer.
  return remote
    ? "the server at SATCHEL_URL cannot reach its storage now: retry, or check the server's database"
    : 'check that the database is running and reachable, then retry';
}

function hintFor(error: SatchelError, command: string, remote: boolean): string | undefined {
  const { data } = error;
  if (typeof data.hint === 'string') return data.hint;
  switch (error.code) {
    case 'INVALID_INPUT':
      return typeof data.field === 'string' ? FLAG_OF_FIELD[data.field] : undefined;
    case 'PRECONDITION_FAILED':
      if (data.expected === '*') return 'the file exists; drop --create-only to replace it';
      if (typeof data.actual === 'number') {
        return `re-read the file and retry with --if-match ${data.actual}`;
      }
      return 're-read the file and retry without --if-match to create it';
    case 'NOT_FOUND':
      return notFoundHint(error, command);
    case 'CONFLICT':
      if (data.reason === 'not_empty')
        return 'pass -r to delete the directory and everything in it';
      if (data.reason === 'exists' && (command === 'mv' || command === 'cp')) {
        return 'pass --overwrite to replace it';
      }
      if (data.reason === 'last_owner')
        return 'first make another member owner: `satchel members add NAME owner`';
      if (data.reason === 'too_many_invitations') {
        return 'withdraw some: `satchel members invited`, then `satchel members rm NAME`';
      }
      if (data.reason === 'too_many_offers') {
        return 'cancel one: `satchel transfer ls`, then `satchel transfer cancel ID`';
      }
      return undefined;
    case 'LOCKED':
      return lockedHint(data, command);
    case 'UNAUTHENTICATED':
      return unauthenticatedHint(remote);
    case 'FORBIDDEN':
      return forbiddenHint(data);
    case 'RATE_LIMITED':
      return 'wait a moment and retry';
    case 'INTEGRITY':
      return 'run `satchel fsck` to check the data directory';
    case 'UNAVAILABLE':
      return unavailableHint(data, remote);
    default:
      return undefined;
  }
}

export interface ErrorReport {
  readonly exitCode: number;
  /** Lines for stderr, without trailing newlines. */
  readonly lines: string[];
}

/**
 * Turns anything thrown by a command into an exit code and stderr lines: `satchel: <message>
 * (<CODE>)` plus an optional hint. Unknown faults are `satchel: internal error: …` with exit 1;
 * the stack is shown only when `debug` is set. `remote`: the run talks to a server (SATCHEL_URL),
 * which changes what some hints point to.
 */
export function describeError(
  error: unknown,
  command: string,
  debug: boolean,
  remote = false,
): ErrorReport {
  if (error instanceof SatchelError && error.code !== 'INTERNAL') {
    const lines = [`satchel: ${error.message} (${error.code})`];
    const hint = hintFor(error, command, remote);
    if (hint !== undefined) lines.push(`hint: ${hint}`);
    if (debug && error.stack) lines.push(error.stack);
    return { exitCode: EXIT_CODES[error.code], lines };
  }
  const message = error instanceof Error ? error.message : String(error);
  const text = message.startsWith('internal error') ? message : `internal error: ${message}`;
  const lines = [`satchel: ${text}`];
  if (debug) {
    const cause = error instanceof Error ? (error.cause ?? error) : error;
    lines.push(cause instanceof Error && cause.stack ? cause.stack : String(cause));
  } else {
    lines.push('hint: set SATCHEL_DEBUG=1 for details');
  }
  return { exitCode: EXIT_INTERNAL, lines };
}

/** A write to a closed pipe (`satchel cat f | head`): the reader is done, not an error. */
export function isBrokenPipe(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'EPIPE';
}
