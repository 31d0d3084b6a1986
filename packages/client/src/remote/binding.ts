/**
 * An operation's HTTP binding applied to a call: which arguments and options go in the path,
 * the query string, the headers and the JSON body (operations/operation.ts, HttpBinding). The
 * client builds requests with it; the API reads them back with the same rules.
 */
import type { HttpBinding, OperationSpec } from '../operations/operation.js';
import { urlPath } from './file-headers.js';
import { segment } from './http.js';

/** The options that travel as headers, and their header names. */
export const HEADER_OPTIONS = {
  session: 'Satchel-Session',
  lockToken: 'Satchel-Lock-Token',
} as const;

/** The path parameters of a route pattern, as argument names (`:ws` → workspace, `*` → path). */
export function pathArgs(pattern: string): string[] {
  return pattern
    .split('/')
    .filter((part) => part === '*' || part.startsWith(':'))
    .map((part) => (part === '*' ? 'path' : part === ':ws' ? 'workspace' : part.slice(1)));
}

/** Whether requests of this method carry a JSON body. */
export function hasBody(binding: HttpBinding): boolean {
  return binding.method !== 'GET' && binding.method !== 'DELETE';
}

/** The call's arguments by name, and its options beside them (options never win). */
export function namedFields(
  spec: OperationSpec,
  args: readonly unknown[],
): Record<string, unknown> {
  const options = spec.options === undefined ? undefined : args[spec.args.length];
  const fields: Record<string, unknown> =
    typeof options === 'object' && options !== null ? { ...options } : {};
  spec.args.forEach(([name], i) => {
    fields[name] = args[i];
  });
  return fields;
}

export interface BoundRequest {
  /** Below `/v1`, every segment percent-encoded. */
  readonly path: string;
  readonly query: Record<string, string | number | boolean | undefined>;
  readonly headers: { session?: unknown; lockToken?: unknown };
  /** The JSON body, for methods that have one. */
  readonly json: Record<string, unknown> | undefined;
}

/** Splits a call's fields over the parts of the request its binding names. */
export function bindRequest(binding: HttpBinding, fields: Record<string, unknown>): BoundRequest {
  const rest = { ...fields };
  const take = (name: string): unknown => {
    const value = rest[name];
    delete rest[name];
    return value;
  };
  const path = binding.path
    .split('/')
    .map((part) => {
      if (part === '*') return urlPath(String(take('path')));
      if (part === ':ws') return segment(String(take('workspace')));
      return part.startsWith(':') ? segment(String(take(part.slice(1)))) : part;
    })
    .join('/');
  const query: BoundRequest['query'] = {};
  for (const name of Object.keys(binding.query ?? {})) {
    query[name] = take(name) as string | number | boolean | undefined;
  }
  const headers = { session: take('session'), lockToken: take('lockToken') };
  return { path, query, headers, json: hasBody(binding) ? rest : undefined };
}
