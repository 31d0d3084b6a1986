/**
 * What an error from @codesandbox/sdk means. The SDK carries no codes: its fs calls throw
 * `Error("<errno>: <message>")` where errno is the VM's number or `null` (timeouts, a dropped
 * connection, a refused call all read "null: …"), and its REST calls throw
 * `Error("<what failed>: <reason>")` (a 404 ends in ": Sandbox not found", a 403 in
 * ": Unauthorized", a 429 is a RateLimitError with `type: 'rate-limit'`). Sync decides "missing"
 * versus "failed" by a Node-style `.code`, so fs errors are translated here, and only a real
 * ENOENT ever reads as "the file is not there": anything else fails the cycle, which then plans
 * nothing, least of all a deletion.
 */
import { SatchelError } from '@satchel/client/errors.js';

/** Linux errno numbers the VM reports, as the Node-style codes sync understands. */
const ERRNO: Readonly<Record<number, string>> = {
  2: 'ENOENT',
  17: 'EEXIST',
  20: 'ENOTDIR',
  21: 'EISDIR',
  39: 'ENOTEMPTY',
};

/** The errno at the head of an SDK fs error ("2: no such file"), or null when there is none. */
export function errnoOf(error: unknown): number | null {
  if (!(error instanceof Error)) return null;
  const match = /^(-?\d+): /.exec(error.message);
  return match?.[1] === undefined ? null : Math.abs(Number(match[1]));
}

/** The Node-style code of an SDK fs error (`ENOENT`…), or null for anything else. */
export function fsCodeOf(error: unknown): string | null {
  const errno = errnoOf(error);
  if (errno !== null) return ERRNO[errno] ?? null;
  // The stand-ins and a future SDK may carry a code; a message naming one is not trusted.
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : null;
}

/** True only when the VM said ENOENT: a timeout or a dropped connection is never "missing". */
export function isMissing(error: unknown): boolean {
  return fsCodeOf(error) === 'ENOENT';
}

/**
 * An SDK fs error as sync sees it: errors with a known errno keep their message and gain the
 * Node-style `code` (sync's "missing", "exists", "not a folder"); anything else becomes
 * UNAVAILABLE naming the call, so the cycle stops with a sentence instead of guessing.
 */
export function fsError(error: unknown, call: string, path: string): Error {
  if (error instanceof SatchelError) return error;
  const code = fsCodeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code !== null) return Object.assign(new Error(`${call} ${path}: ${message}`), { code });
  return new SatchelError(
    'UNAVAILABLE',
    `the sandbox did not answer ${call} ${path} (${message}); nothing was changed for it`,
    { provider: 'codesandbox', call, path },
    { cause: error },
  );
}

/** How long an fs call may take by default, ms (the SDK's own limit is 90 s per message). */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** Extra time a transfer gets per MiB it moves, ms. */
const MS_PER_MIB = 1000;

/**
 * Runs one SDK fs call, bounded by `ms` (plus MS_PER_MIB for each MiB of `bytes` it moves),
 * its failure translated by `fsError`. Past the bound the call fails with UNAVAILABLE: the SDK
 * request itself is left to finish or time out on its own, and whatever it answers is ignored,
 * so a sandbox that stops answering stops the sync cycle within the bound, before it plans.
 */
export async function boundedCall<T>(
  call: string,
  path: string,
  ms: number,
  run: () => Promise<T>,
  bytes = 0,
): Promise<T> {
  const limit = Math.round(ms + (bytes / (1024 * 1024)) * MS_PER_MIB);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SatchelError(
            'UNAVAILABLE',
            `the sandbox did not answer ${call} ${path} within ${limit} ms; nothing was changed for it`,
            { provider: 'codesandbox', call, path, timeoutMs: limit },
          ),
        ),
      limit,
    );
  });
  try {
    return await Promise.race([run(), late]);
  } catch (error) {
    throw fsError(error, call, path);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * An SDK lifecycle error (create, resume, hibernate, shutdown) as a SatchelError with a
 * sentence a user can act on; `id` is the sandbox (or template) the call was about.
 */
export function lifecycleError(error: unknown, id: string): unknown {
  if (!(error instanceof Error) || error instanceof SatchelError) return error;
  const { message } = error;
  const data = { provider: 'codesandbox', sandbox: id };
  if (message.endsWith(': Sandbox not found')) {
    return new SatchelError('NOT_FOUND', `sandbox ${id} not found`, data);
  }
  if ((error as { type?: unknown }).type === 'rate-limit' || /\b429\b|rate limit/i.test(message)) {
    return new SatchelError('RATE_LIMITED', `CodeSandbox rate limit reached: ${message}`, data, {
      cause: error,
    });
  }
  if (
    /: (Unauthorized|Forbidden)$|\b401\b|not authenticated|invalid (api )?(key|token)/i.test(
      message,
    )
  ) {
    return new SatchelError(
      'UNAVAILABLE',
      `CodeSandbox refused the API key (CSB_API_KEY): check the key and its permissions (${message})`,
      { ...data, reason: 'provider_auth' },
      { cause: error },
    );
  }
  return new SatchelError('UNAVAILABLE', `CodeSandbox: ${message}`, data, { cause: error });
}
