/** JSON over HTTP for the OpenAI-compatible providers (embeddings.ts, llm.ts), on `fetch`. */
import { SatchelError } from '@satchel/client/errors.js';

/**
 * The endpoint URL from a configured URL: used as is when it already ends in `/<endpoint>`
 * (e.g. `/v1/embeddings`), else `<url>/<endpoint>` when it ends in `/v1`, else
 * `<url>/v1/<endpoint>`.
 */
export function endpointUrl(url: string, endpoint: string): string {
  const base = url.replace(/\/+$/, '');
  if (base.endsWith(`/${endpoint}`)) return base;
  return base.endsWith('/v1') ? `${base}/${endpoint}` : `${base}/v1/${endpoint}`;
}

export interface PostOptions {
  readonly apiKey?: string;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

/**
 * POSTs `body` as JSON and returns the parsed answer. Any failure — unreachable, a timeout, a
 * non-2xx status, a body that is not JSON — is INTERNAL naming the endpoint (the provider is
 * part of the server's environment, not the caller's input). The key never appears in errors.
 */
export async function postJson(url: string, body: unknown, options: PostOptions): Promise<unknown> {
  const doFetch = options.fetch ?? fetch;
  let res: Response;
  try {
    res = await doFetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(options.apiKey === undefined ? {} : { Authorization: `Bearer ${options.apiKey}` }),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SatchelError('INTERNAL', `cannot reach ${url}: ${reason}`, {}, { cause: error });
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) {
    throw new SatchelError('INTERNAL', `${url} answered ${res.status}: ${text.slice(0, 200)}`, {
      status: res.status,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SatchelError('INTERNAL', `${url} answered with something that is not JSON`);
  }
}
