/** What tools/list shows of a tool: its compact listing (tool.ts registers the tools). */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Annotations } from './tool.js';

/**
 * The tool as tools/list shows it, kept small because every conversation pays for it (docs/mcp.md,
 * Token budget): no title (clients show the name), the input schema without `$schema` and
 * without bounds a model never needs (±2^53 on every integer, string lengths); no output schema
 * (the shapes are in docs/mcp.md, and each result's text says what a model needs). The server
 * still checks every result against its output schema, and every argument against the input's.
 */
export function listingOf(
  def: { readonly name: string; readonly description: string },
  input: z.ZodType,
  annotations: Annotations,
): Tool {
  const schema = z.toJSONSchema(input, {
    target: 'draft-7',
    io: 'input',
    override: ({ jsonSchema }) => {
      // Bounds a model never comes near; the tool still enforces every one of them.
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER || jsonSchema.minimum === 0) {
        delete jsonSchema.minimum;
      }
      if (jsonSchema.exclusiveMinimum === 0) delete jsonSchema.exclusiveMinimum;
      for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems', 'pattern'] as const) {
        delete jsonSchema[key];
      }
      if (jsonSchema.minimum === 1 && jsonSchema.maximum !== undefined) delete jsonSchema.minimum;
    },
  });
  collapseTypeUnions(schema);
  const properties = (schema.properties ?? {}) as Record<string, { description?: string }>;
  for (const name of DESCRIBED_ONCE) delete properties[name]?.description;
  // Unknown arguments are refused all the same, naming the argument (parseOptions).
  delete schema.$schema;
  delete schema.additionalProperties;
  return {
    name: def.name,
    description: def.description,
    inputSchema: schema as Tool['inputSchema'],
    annotations: listedAnnotations(annotations),
  };
}

/**
 * The annotations without the hints that say what the MCP specification already assumes
 * (readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint true), nor the
 * two that mean nothing for a read-only tool (destructive, idempotent): the same meaning for a
 * client, about a quarter of a small tool's listing less.
 */
export function listedAnnotations(annotations: Annotations): ToolAnnotations {
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint, ...rest } = annotations;
  return {
    ...rest,
    ...(readOnlyHint === true ? { readOnlyHint } : {}),
    ...(readOnlyHint !== true && destructiveHint === false ? { destructiveHint } : {}),
    ...(readOnlyHint !== true && idempotentHint === true ? { idempotentHint } : {}),
    ...(openWorldHint === false ? { openWorldHint } : {}),
  };
}

/**
 * Arguments many tools share, whose meaning the server's instructions give once (server.ts)
 * instead of every tool's listing repeating it.
 */
const DESCRIBED_ONCE = ['workspace', 'version', 'at', 'ifMatch', 'lockToken'] as const;

/**
 * `{anyOf: [{type: "integer"}, {type: "string"}]}` → `{type: ["integer", "string"]}`: the same
 * JSON Schema in fewer tokens, for unions of bare types once their bounds are gone (`at`).
 */
function collapseTypeUnions(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  for (const value of Object.values(node)) collapseTypeUnions(value);
  const schema = node as { anyOf?: unknown; type?: unknown };
  const members = Array.isArray(schema.anyOf) ? (schema.anyOf as unknown[]) : [];
  const bare = members.every(
    (m) =>
      typeof m === 'object' &&
      m !== null &&
      Object.keys(m).length === 1 &&
      typeof (m as { type?: unknown }).type === 'string',
  );
  if (members.length > 1 && bare && schema.type === undefined) {
    schema.type = members.map((m) => (m as { type: string }).type);
    delete schema.anyOf;
  }
}
