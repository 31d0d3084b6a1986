/** The OpenAPI 3.1 document, generated from the route table and core's zod schemas. */
import { z } from 'zod';
import { INPUT_SCHEMAS, OUTPUT_SCHEMAS } from './components.js';
import { derivedOperations } from './derived.js';
import { AUDIT_OPERATIONS, MCP_OPERATIONS, SERVICE_OPERATIONS } from './operations-admin.js';
import { FILE_OPERATIONS } from './operations-files.js';
import { SHARE_OPERATIONS } from './operations-share.js';
import { TRANSFER_OPERATIONS } from './operations-transfers.js';
import {
  type ContentSpec,
  type OperationSpec,
  openApiPath,
  type ParamSpec,
  pathParams,
} from './spec.js';

type Json = Record<string, unknown>;

const DERIVED = derivedOperations(OUTPUT_SCHEMAS);

/**
 * Every operation of the API: the operation table's, derived from their declarations, and the
 * hand-written routes' (service, files as bytes, the change feed, the audit log, MCP).
 */
export const OPERATIONS: readonly OperationSpec[] = [
  ...SERVICE_OPERATIONS,
  ...DERIVED.operations,
  ...FILE_OPERATIONS,
  ...TRANSFER_OPERATIONS,
  ...SHARE_OPERATIONS,
  ...AUDIT_OPERATIONS,
  ...MCP_OPERATIONS,
];

const REF = '#/components/schemas/';

const PATH_PARAM_DESCRIPTIONS: Readonly<Record<string, string>> = {
  ws: 'workspace name',
  path: 'path inside the workspace; slashes as they are (or %2F)',
  id: 'id',
  principal: 'principal name',
  file: 'asset file name',
};

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Invalid input or path (INVALID_INPUT, INVALID_PATH)',
  401: 'Missing, unknown, revoked or expired key (UNAUTHENTICATED)',
  403: 'Not allowed for this key (FORBIDDEN)',
  404: 'No such workspace, file, version, lock or route (NOT_FOUND)',
  405: 'Method not allowed on this path (INVALID_INPUT, with Allow)',
  409: 'Conflicts with the current state (CONFLICT)',
  410: 'The content was redacted by an owner (REDACTED)',
  412: 'If-Match / ifMatch is not the head (PRECONDITION_FAILED)',
  413: 'Over a configured size limit (TOO_LARGE) or a workspace quota (QUOTA_EXCEEDED)',
  416: 'Range not satisfiable (INVALID_INPUT)',
  423: 'Held by another holder’s lock, or stale fencing token (LOCKED)',
  429: 'Rate limit of this key exceeded (RATE_LIMITED, with Retry-After)',
  500: 'Server fault; quote the request id (INTERNAL)',
};

/** zod → JSON Schema 2020-12 for one registry of named schemas, refs between them as components. */
function componentSchemas(
  schemas: Readonly<Record<string, z.ZodType>>,
  io: 'input' | 'output',
): Json {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const { schemas: out } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: (id) => `${REF}${id}`,
  });
  const components: Json = {};
  for (const [id, schema] of Object.entries(out)) {
    const { $schema: _schema, $id: _id, ...rest } = schema as Json;
    components[id] = rest;
  }
  return components;
}

function inlineSchema(schema: z.ZodType): Json {
  const { $schema: _schema, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as Json;
  return rest;
}

const ref = (name: string): Json => ({ $ref: `${REF}${name}` });

function content(specs: readonly ContentSpec[]): Json {
  const out: Json = {};
  for (const spec of specs) {
    if ('json' in spec) out['application/json'] = { schema: ref(spec.json) };
    else {
      out[spec.media] = {
        schema:
          spec.format === 'binary' ? { type: 'string', format: 'binary' } : { type: 'string' },
      };
    }
  }
  return out;
}

function parameter(spec: ParamSpec): Json {
  return {
    name: spec.name,
    in: spec.in,
    description: spec.description,
    required: spec.required ?? false,
    schema: inlineSchema(spec.schema),
  };
}

function errorResponse(status: number): Json {
  const response: Json = {
    description: STATUS_TEXT[status] ?? 'Error',
    content: { 'application/problem+json': { schema: ref('Problem') } },
  };
  if (status === 429) {
    response.headers = {
      'Retry-After': {
        description: 'seconds until the key may retry',
        schema: { type: 'integer' },
      },
      RateLimit: {
        description: 'limit, remaining, reset (IETF draft)',
        schema: { type: 'string' },
      },
      'RateLimit-Policy': { description: 'limit;w=window', schema: { type: 'string' } },
    };
  }
  return response;
}

function operation(spec: OperationSpec): Json {
  const auth = spec.auth ?? 'bearer';
  const params = [
    ...pathParams(spec.path).map((name) => ({
      name,
      in: 'path',
      required: true,
      description: PATH_PARAM_DESCRIPTIONS[name] ?? name,
      schema: { type: 'string' },
    })),
    ...(spec.params ?? []).map(parameter),
  ];
  const responses: Json = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const out: Json = { description: response.description };
    if (response.content !== undefined) out.content = content(response.content);
    if (response.headers !== undefined) {
      out.headers = Object.fromEntries(
        response.headers.map((name) => [name, { schema: { type: 'string' } }]),
      );
    }
    responses[status] = out;
  }
  const errors = new Set<number>(spec.errors ?? []);
  if (auth !== 'public') errors.add(401);
  if (auth === 'bearer') errors.add(429);
  errors.add(500);
  for (const status of [...errors].sort()) responses[String(status)] = errorResponse(status);

  const out: Json = {
    operationId: `${spec.method.toLowerCase()}${openApiPath(spec.path).replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: spec.summary,
    tags: [spec.tag],
    security: auth === 'public' ? [] : [{ bearer: [] }],
    responses,
  };
  if (spec.description !== undefined) out.description = spec.description;
  if (params.length > 0) out.parameters = params;
  if (spec.body !== undefined) {
    out.requestBody =
      'json' in spec.body
        ? {
            required: !(spec.body.optional ?? false),
            content: { 'application/json': { schema: ref(spec.body.json) } },
          }
        : {
            required: false,
            content: { [spec.body.raw]: { schema: { type: 'string', format: 'binary' } } },
          };
  }
  return out;
}

function build(operations: readonly OperationSpec[]): Json {
  const paths: Record<string, Json> = {};
  for (const spec of operations) {
    const path = openApiPath(spec.path);
    paths[path] ??= {};
    (paths[path] as Json)[spec.method.toLowerCase()] = operation(spec);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Satchel API',
      version: '0.1.0',
      description:
        'Persistent, versioned file storage for AI agents. Authenticate with ' +
        '`Authorization: Bearer <key>`; errors are RFC 9457 problem+json with a stable `code`.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name })),
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'a Satchel API key' },
      },
      schemas: {
        ...componentSchemas({ ...OUTPUT_SCHEMAS, ...DERIVED.outputs }, 'output'),
        ...componentSchemas({ ...INPUT_SCHEMAS, ...DERIVED.inputs }, 'input'),
      },
    },
  };
}

let cached: Json | undefined;

/** The document (built once per process; it depends on nothing but the code). */
export function openApiDocument(): Json {
  cached ??= build(OPERATIONS);
  return cached;
}
