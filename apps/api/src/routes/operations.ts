/**
 * The REST routes of every operation with an HTTP binding, derived from core's operation table:
 * path parameters, query parameters and the JSON body are read by the binding's rules (the same
 * rules the client writes them by), validated with the operation's schemas, and the result is
 * answered with the binding's status and validators. Routes whose bodies are byte or event
 * streams are written by hand in the other route files.
 */
import {
  type ArgSpec,
  type HttpBinding,
  hasBody,
  isSatchelError,
  OPERATION_NAMES,
  OPERATIONS,
  type OperationName,
  type OperationSpec,
  pathArgs,
  SatchelError,
} from '@satchel/core';
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { etag, versionHeaders } from '../http/conditional.js';
import {
  mutationOptions,
  queryBool,
  queryInt,
  queryNumber,
  readJson,
  sessionOption,
  urlPath,
  validate,
} from '../input.js';

type Ctx = Context<ApiEnv>;

/** How one operation's requests are read, computed once when the app is built. */
interface Route {
  readonly spec: OperationSpec;
  readonly binding: HttpBinding;
  /** Fields in the path, and the segments before `*` (for the file path). */
  readonly inPath: ReadonlySet<string>;
  readonly wildcardAt: number;
  /** The query parameters, validated together. */
  readonly query: z.ZodObject | null;
  /** The JSON body: the arguments and options the URL does not carry; unknown fields refused. */
  readonly body: z.ZodObject | null;
  readonly bodyOptional: boolean;
  readonly options: ReadonlySet<string>;
}

function route(spec: OperationSpec, binding: HttpBinding): Route {
  const inPath = new Set(pathArgs(binding.path));
  const inQuery = new Set(Object.keys(binding.query ?? {}));
  const optionShape = spec.options?.shape ?? {};
  const fields: Record<string, z.ZodType> = { ...optionShape };
  for (const [name, schema] of spec.args as readonly ArgSpec[]) fields[name] = schema;
  const pick = (keep: (name: string) => boolean): Record<string, z.ZodType> =>
    Object.fromEntries(Object.entries(fields).filter(([name]) => keep(name)));
  const bodyFields = pick((name) => !inPath.has(name) && !inQuery.has(name));
  const requiredInBody =
    spec.args.some(([name]) => name in bodyFields) || spec.optionsRequired === true;
  return {
    spec,
    binding,
    inPath,
    wildcardAt: binding.path.split('/').indexOf('*'),
    query: inQuery.size === 0 ? null : z.object(pick((name) => inQuery.has(name))),
    body: hasBody(binding) ? z.object(bodyFields).strict() : null,
    bodyOptional: !requiredInBody,
    options: new Set(Object.keys(optionShape)),
  };
}

/** A query parameter as its binding types it; undefined when absent. */
function queryValue(c: Ctx, name: string, type: string): unknown {
  switch (type) {
    case 'integer':
      return queryInt(c, name);
    case 'number':
      return queryNumber(c, name);
    case 'boolean':
      return queryBool(c, name);
    default:
      return c.req.query(name);
  }
}

/** The call's fields by name, from the path, the query string, the body and the headers. */
async function readFields(
  c: Ctx,
  r: Route,
  maxJsonBytes: number,
): Promise<Record<string, unknown>> {
  const fields: Record<string, unknown> = {};
  for (const name of r.inPath) {
    fields[name] =
      name === 'path' && r.wildcardAt !== -1
        ? urlPath(c, r.wildcardAt)
        : c.req.param(name === 'workspace' ? 'ws' : name);
  }
  if (r.query !== null) {
    const raw: Record<string, unknown> = {};
    for (const [name, type] of Object.entries(r.binding.query ?? {})) {
      const value = queryValue(c, name, type);
      if (value !== undefined) raw[name] = value;
      else if (r.spec.args.some(([arg]) => arg === name)) {
        throw new SatchelError(
          'INVALID_INPUT',
          `invalid ${name}: the query parameter is required`,
          {
            field: name,
          },
        );
      }
    }
    Object.assign(fields, validate(r.query, raw, 'query'));
  }
  if (r.body !== null) {
    Object.assign(fields, await readJson(c, r.body, maxJsonBytes, { optional: r.bodyOptional }));
  }
  // Satchel-Session and Satchel-Lock-Token win over the body, for operations that take them
  // (a header an operation does not take is not even parsed).
  if (r.options.has('session')) Object.assign(fields, sessionOption(c));
  if (r.options.has('lockToken')) Object.assign(fields, mutationOptions(c));
  return fields;
}

/** The method's arguments: the named ones in order, then the options. */
function argsOf(spec: OperationSpec, fields: Record<string, unknown>): unknown[] {
  const args = spec.args.map(([name]) => fields[name]);
  if (spec.options === undefined) return args;
  const options = Object.fromEntries(
    Object.entries(fields).filter(([name]) => !spec.args.some(([arg]) => arg === name)),
  );
  return [...args, options];
}

function respond(c: Ctx, r: Route, result: unknown): Response {
  const { binding } = r;
  if (binding.status === 204 || r.spec.result === undefined) return c.body(null, 204);
  const headers: Record<string, string> = {};
  const validators = binding.validators?.(result as never);
  if (validators !== undefined) {
    Object.assign(
      headers,
      validators.modifiedAt === undefined
        ? { ETag: etag(validators.seq) }
        : versionHeaders({ path: '', seq: validators.seq, modifiedAt: validators.modifiedAt }),
    );
  }
  const location = binding.location?.(result as never);
  if (location !== undefined) headers.Location = location;
  const body = binding.list === true ? { items: result, nextCursor: null } : result;
  return c.json(body as object, binding.status ?? 200, headers);
}

/**
 * Around a call, for what the API measures of some operations: lock waits as clients see them
 * (the acquisition, including any `waitSeconds`, by outcome).
 */
function observer(
  config: RouteConfig,
  name: OperationName,
): ((call: () => Promise<unknown>) => Promise<unknown>) | null {
  if (name !== 'acquireLock') return null;
  return async (call) => {
    const started = performance.now();
    const waited = (): number => (performance.now() - started) / 1000;
    try {
      const result = await call();
      config.metrics.observeLockWait(waited(), 'acquired');
      return result;
    } catch (error) {
      config.metrics.observeLockWait(
        waited(),
        isSatchelError(error, 'LOCKED') ? 'locked' : 'failed',
      );
      throw error;
    }
  };
}

/** Routes of every operation with an HTTP binding, mounted under `/v1`. */
export function operationRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  for (const name of OPERATION_NAMES) {
    const spec: OperationSpec = OPERATIONS[name];
    if ('custom' in spec.http) continue;
    const r = route(spec, spec.http);
    const observe = observer(config, name);
    app.on(r.binding.method, r.binding.path, async (c) => {
      const args = argsOf(spec, await readFields(c, r, config.maxJsonBytes));
      const satchel = c.get('satchel') as unknown as Record<string, (...a: unknown[]) => unknown>;
      const call = async () => satchel[name]?.(...args);
      return respond(c, r, await (observe === null ? call() : observe(call)));
    });
  }
  return app;
}

/** The routes, for the OpenAPI document: each operation's binding and schemas. */
export function operationRouteTable(): ReadonlyArray<{
  readonly name: OperationName;
  readonly spec: OperationSpec;
  readonly binding: HttpBinding;
  readonly query: z.ZodObject | null;
  readonly body: z.ZodObject | null;
  readonly bodyOptional: boolean;
}> {
  return OPERATION_NAMES.flatMap((name) => {
    const spec: OperationSpec = OPERATIONS[name];
    if ('custom' in spec.http) return [];
    const r = route(spec, spec.http);
    return [
      {
        name,
        spec,
        binding: r.binding,
        query: r.query,
        body: r.body,
        bodyOptional: r.bodyOptional,
      },
    ];
  });
}
