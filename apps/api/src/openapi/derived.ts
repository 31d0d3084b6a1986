/**
 * The OpenAPI description of the operation table's routes, derived from the same declarations
 * the routes are: path, query and header parameters, the body, the result and its status.
 */
import type { OperationSpec as Declaration } from '@satchel/core';
import { z } from 'zod';
import { operationRouteTable } from '../routes/operations.js';
import { LOCK_TOKEN_HEADER, SESSION_HEADER } from './operations-files.js';
import type { ErrorStatus, OperationSpec, ParamSpec } from './spec.js';

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** The error statuses an operation can answer with, from what it declares. */
/** Operations that add content or versions to a workspace: a quota may refuse them (413). */
const STORES_CONTENT = new Set([
  'writeFiles',
  'editFile',
  'copy',
  'move',
  'restore',
  'createUpload',
  'createUploadUrl',
  'completeUpload',
]);

function errorsOf(spec: Declaration, options: ReadonlySet<string>): ErrorStatus[] {
  const errors: ErrorStatus[] = [400];
  const access = spec.access;
  if (typeof access === 'function' || !('self' in access)) errors.push(403);
  errors.push(404);
  if (spec.mutates) errors.push(409);
  if (options.has('ifMatch')) errors.push(412);
  if (STORES_CONTENT.has(spec.name)) errors.push(413);
  if (options.has('lockToken') || spec.tag === 'locks') errors.push(423);
  return errors;
}

/**
 * The table's operations as the document describes them, with the named schemas they refer to:
 * a result that is already a named output schema is referred to by that name; any other is
 * named after its operation (`ListLocksResult`), as is each body (`AcquireLockBody`).
 */
export function derivedOperations(named: Readonly<Record<string, z.ZodType>>): {
  operations: OperationSpec[];
  outputs: Record<string, z.ZodType>;
  inputs: Record<string, z.ZodType>;
} {
  const nameOf = new Map<z.ZodType, string>(
    Object.entries(named).map(([name, schema]) => [schema, name]),
  );
  const outputs: Record<string, z.ZodType> = {};
  const inputs: Record<string, z.ZodType> = {};
  const operations = operationRouteTable().map(
    ({ name, spec, binding, query, body, bodyOptional }) => {
      const options = new Set(Object.keys(spec.options?.shape ?? {}));
      const params: ParamSpec[] = Object.entries(query?.shape ?? {}).map(([param, schema]) => ({
        name: param,
        in: 'query',
        schema: schema as z.ZodType,
        description: (schema as z.ZodType).description ?? param,
        required: spec.args.some(([arg]) => arg === param),
      }));
      if (options.has('session')) params.push(SESSION_HEADER);
      if (options.has('lockToken')) params.push(LOCK_TOKEN_HEADER);
      let result: string | undefined;
      if (spec.result !== undefined && binding.status !== 204) {
        // A list travels as one page: `{items, nextCursor: null}`.
        const schema =
          binding.list === true
            ? z.object({ items: spec.result, nextCursor: z.null() })
            : spec.result;
        result =
          nameOf.get(schema) ?? `${pascal(name)}${binding.list === true ? 'Page' : 'Result'}`;
        if (!nameOf.has(schema)) outputs[result] = schema;
      }
      const headers = [
        ...(binding.validators === undefined ? [] : ['ETag']),
        ...(binding.location === undefined ? [] : ['Location']),
      ];
      const status = binding.status ?? 200;
      const out: OperationSpec = {
        method: binding.method,
        path: `/v1${binding.path}`,
        tag: spec.tag,
        summary: spec.summary,
        params,
        responses: {
          [status]: {
            description: status === 204 ? 'done' : 'the result',
            ...(result === undefined
              ? {}
              : {
                  content: [{ json: result }],
                }),
            ...(headers.length === 0 ? {} : { headers }),
          },
        },
        errors: errorsOf(spec, options),
      };
      if (body !== null && Object.keys(body.shape).length > 0) {
        inputs[`${pascal(name)}Body`] = body;
        return { ...out, body: { json: `${pascal(name)}Body`, optional: bodyOptional } };
      }
      return out;
    },
  );
  return { operations, outputs, inputs };
}
