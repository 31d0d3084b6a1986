/**
 * Request input: JSON bodies and query parameters validated with core's zod schemas, the
 * workspace path in the URL, and the `Satchel-Session` / `Satchel-Lock-Token` headers. Every
 * refusal is INVALID_INPUT (or INVALID_PATH) with `data.field` naming what was wrong.
 */
import { SatchelError } from '@satchel/core';
import { LockTokenSchema, SessionSchema } from '@satchel/core/schemas';
import type { Context } from 'hono';
import type { z } from 'zod';
import type { ApiEnv } from './api-env.js';
import { HttpError } from './problem.js';

type Ctx = Context<ApiEnv>;

function invalid(field: string, message: string): SatchelError {
  return new SatchelError('INVALID_INPUT', `invalid ${field}: ${message}`, { field });
}

/** Validates `value` against `schema`: INVALID_INPUT naming the first bad field (or `fallback`). */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  fallback = 'body',
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue?.code === 'unrecognized_keys') {
    const path = [...issue.path.map(String), issue.keys[0] ?? ''].filter(Boolean).join('.');
    throw invalid(path || fallback, 'unknown field');
  }
  const field = issue?.path.map(String).join('.') || fallback;
  throw invalid(field, issue?.message ?? 'invalid value');
}

/** 413 for a body over `maxBytes`. */
export function tooLarge(maxBytes: number): HttpError {
  return new HttpError('TOO_LARGE', `the request body exceeds the limit of ${maxBytes} bytes`, {
    data: { limit: maxBytes },
  });
}

/** Refuses a body whose declared `Content-Length` is over `maxBytes` before reading any of it. */
export function checkDeclaredLength(c: Ctx, maxBytes: number): void {
  const declared = Number(c.req.header('Content-Length') ?? 0);
  if (declared > maxBytes) throw tooLarge(maxBytes);
}

/** The body as text, refused (TOO_LARGE) past `maxBytes` whether declared or streamed. */
export async function readBounded(c: Ctx, maxBytes: number): Promise<string> {
  checkDeclaredLength(c, maxBytes);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const piece of c.get('body').stream()) {
    size += piece.byteLength;
    // Chunked bodies declare no length: count, and stop reading as soon as it is too much.
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(piece);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw invalid('body', 'not valid UTF-8');
  }
}

/**
 * Reads a JSON body of at most `maxBytes` (TOO_LARGE above) and validates it with `schema`.
 * Malformed JSON and schema violations are INVALID_INPUT. An empty body counts as `{}` when
 * `optional`, else it is INVALID_INPUT. The Content-Type is not checked, so `curl -d` works.
 */
export async function readJson<S extends z.ZodType>(
  c: Ctx,
  schema: S,
  maxBytes: number,
  { optional = false } = {},
): Promise<z.infer<S>> {
  const text = await readBounded(c, maxBytes);
  if (text.trim() === '') {
    if (!optional) throw invalid('body', 'a JSON body is required');
    return validate(schema, {});
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(
      'body',
      `malformed JSON (${error instanceof Error ? error.message : 'parse error'})`,
    );
  }
  return validate(schema, value);
}

/** A query parameter as a non-negative integer; undefined when absent. */
export function queryInt(c: Ctx, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw invalid(name, 'must be a non-negative integer');
  return Number(raw);
}

/** A query parameter as a non-negative decimal number (`2`, `0.5`); undefined when absent. */
export function queryNumber(c: Ctx, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}(?:\.\d{1,6})?$/.test(raw)) throw invalid(name, 'must be a non-negative number');
  return Number(raw);
}

/** A boolean query parameter: `?x`, `?x=true`, `?x=1` are true; `false`, `0` false. */
export function queryBool(c: Ctx, name: string): boolean | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  if (raw === '' || raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw invalid(name, 'must be true or false');
}

/** `?cursor=&limit=` of a paginated listing (core bounds the limit: default 100, max 1000). */
export function pageQuery(c: Ctx): { cursor?: string; limit?: number } {
  const cursor = c.req.query('cursor');
  const limit = queryInt(c, 'limit');
  return {
    ...(cursor === undefined ? {} : { cursor }),
    ...(limit === undefined ? {} : { limit }),
  };
}

/**
 * The session label from `Satchel-Session`, for every call that takes CallOptions. The header
 * is percent-decoded (UTF-8) once, so any label of 1–200 characters can travel in it; a literal
 * `%` must be sent as `%25`.
 */
export function sessionOption(c: Ctx): { session?: string } {
  const raw = c.req.header('Satchel-Session');
  if (raw === undefined) return {};
  let label: string;
  try {
    label = decodeURIComponent(raw);
  } catch {
    throw invalid('Satchel-Session', 'not valid percent-encoded UTF-8');
  }
  return { session: validate(SessionSchema, label, 'Satchel-Session') };
}

/** Session label and `Satchel-Lock-Token`, for every call that changes files. */
export function mutationOptions(c: Ctx): { session?: string; lockToken?: number } {
  const raw = c.req.header('Satchel-Lock-Token');
  if (raw === undefined) return sessionOption(c);
  if (!/^\d{1,15}$/.test(raw.trim())) {
    throw invalid('Satchel-Lock-Token', 'must be the positive integer token of a held lock');
  }
  const lockToken = validate(LockTokenSchema, Number(raw.trim()), 'Satchel-Lock-Token');
  return { ...sessionOption(c), lockToken };
}

/**
 * The workspace path in the URL after its first `skip` segments (`/v1/workspaces/:ws/files/…`
 * skips 4), percent-decoded exactly once: `%2F` is a separator, `%252e%252e` reaches core as
 * the literal name `%2e%2e`. Core's normalizePath judges the result (INVALID_PATH).
 */
export function urlPath(c: Ctx, skip: number): string {
  const { pathname } = new URL(c.req.url);
  const segments = pathname.split('/').slice(1 + skip);
  try {
    return `/${segments.map((s) => decodeURIComponent(s)).join('/')}`;
  } catch {
    throw new SatchelError('INVALID_PATH', 'the path is not valid percent-encoded UTF-8', {
      path: segments.join('/'),
      reason: 'percent-encoding',
    });
  }
}
