/**
 * One delivery attempt: a signed POST over node:http(s) that connects only to an address the
 * SSRF guard accepted, follows no redirect, gives up after the timeout, and keeps at most a few
 * KiB of the answer for the delivery log.
 */
import type { IncomingMessage } from 'node:http';
import { type AllowList, describeRange, guardedLookup, hostOf, refusedRange } from './ssrf.js';

/** How much of an answer's body is read for the log. */
const MAX_BODY_BYTES = 4096;
/** How much of it the log keeps in an error message. */
const MAX_ERROR_BODY = 200;

export const USER_AGENT = 'Satchel-Webhooks/0.1';

export interface AttemptResult {
  /** HTTP status, null when no answer came. */
  readonly status: number | null;
  /** Null for a 2xx; else why the attempt failed. */
  readonly error: string | null;
  readonly durationMs: number;
}

async function readSome(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    const piece = chunk as Buffer;
    chunks.push(piece);
    size += piece.length;
    if (size >= MAX_BODY_BYTES) break;
  }
  res.destroy();
  return Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8');
}

function failure(status: number, res: IncomingMessage, body: string): string {
  if (status >= 300 && status < 400) {
    const location = res.headers.location;
    return `HTTP ${status}: redirects are not followed${location ? ` (to ${location.slice(0, 200)})` : ''}`;
  }
  const text = body.replace(/\s+/g, ' ').trim().slice(0, MAX_ERROR_BODY);
  return text === '' ? `HTTP ${status}` : `HTTP ${status}: ${text}`;
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'AbortError')
    return `timed out after ${timeoutMs} ms`;
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ESSRF') return `refused by the SSRF guard: ${message}`;
  return code === undefined || message.includes(code) ? message : `${code} ${message}`;
}

/** POSTs `body` to `url` with `headers`; never throws: every outcome is an AttemptResult. */
export async function postOnce(
  url: URL,
  body: string,
  headers: Readonly<Record<string, string>>,
  options: { readonly timeoutMs: number; readonly allow: AllowList },
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const host = hostOf(url);
  // An IP literal is connected to without a lookup: judge it here.
  const range = options.allow.allowsHost(host) ? null : refusedRange(host, options.allow);
  if (range !== null && range !== 'invalid') {
    return {
      status: null,
      error: `refused by the SSRF guard: ${host} is ${describeRange(range)}`,
      durationMs: 0,
    };
  }
  // Loaded with the first delivery: a command that never delivers does not pay for them.
  const { request: send } = await (url.protocol === 'https:'
    ? import('node:https')
    : import('node:http'));
  const lookup = await guardedLookup(options.allow);
  try {
    return await new Promise<AttemptResult>((resolve, reject) => {
      const req = send(
        url,
        {
          method: 'POST',
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': USER_AGENT,
          },
          // A fresh connection per attempt: every attempt resolves and checks the address anew.
          agent: false,
          lookup,
          signal: AbortSignal.timeout(options.timeoutMs),
        },
        (res) => {
          const status = res.statusCode ?? 0;
          readSome(res).then(
            (text) =>
              resolve({
                status,
                error: status >= 200 && status < 300 ? null : failure(status, res, text),
                durationMs: elapsed(),
              }),
            reject,
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  } catch (error) {
    return { status: null, error: describe(error, options.timeoutMs), durationMs: elapsed() };
  }
}
