/** The route table's vocabulary: what the OpenAPI document says about one operation. */
import type { z } from 'zod';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ParamSpec {
  readonly name: string;
  readonly in: 'query' | 'header';
  readonly schema: z.ZodType;
  readonly description: string;
  readonly required?: boolean;
}

/** A response body: JSON of a named schema (a component), or raw bytes/text of a media type. */
export type ContentSpec =
  | { readonly json: string }
  | { readonly media: string; readonly format: 'binary' | 'text' };

export interface ResponseSpec {
  readonly description: string;
  readonly content?: readonly ContentSpec[];
  /** Response headers worth naming (ETag, Location, …). */
  readonly headers?: readonly string[];
}

/** Error statuses an operation may answer with, beside the ones every guarded route has. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 410 | 412 | 413 | 416 | 423;

export interface OperationSpec {
  readonly method: Method;
  /** The Hono route pattern, as `app.routes` lists it (`/v1/workspaces/:ws/files/*`). */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  readonly params?: readonly ParamSpec[];
  /** A JSON body of a named schema, or a raw body of any media type (file content). */
  readonly body?: { readonly json: string; readonly optional?: boolean } | { readonly raw: string };
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  readonly errors?: readonly ErrorStatus[];
  /**
   * `bearer` (default): needs a key, may answer 401 and 429. `admin`: needs an admin's key, is
   * not rate limited. `public`: no key.
   */
  readonly auth?: 'bearer' | 'admin' | 'public';
}

/** `/v1/workspaces/:ws/files/*` → `/v1/workspaces/{ws}/files/{path}`. */
export function openApiPath(honoPath: string): string {
  return honoPath
    .split('/')
    .map((part) => (part === '*' ? '{path}' : part.startsWith(':') ? `{${part.slice(1)}}` : part))
    .join('/');
}

/** The path parameters of a Hono route pattern, in order (`*` is `path`). */
export function pathParams(honoPath: string): string[] {
  return honoPath
    .split('/')
    .filter((part) => part === '*' || part.startsWith(':'))
    .map((part) => (part === '*' ? 'path' : part.slice(1)));
}
