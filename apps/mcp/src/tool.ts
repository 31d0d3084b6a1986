/**
 * What a tool is (metadata, schemas, annotations, a handler) and what every handler gets: the
 * Satchel, the limits, the default workspace and path checks. `registerTools` turns definitions
 * into SDK tools, mapping every failure to an `isError` result (errors.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ContentBlock, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { type CallOptions, normalizePath, type Satchel, SatchelError } from '@satchel/core';
import { z } from 'zod';
import { toolError } from './errors.js';

/** Bounds of every response (see docs/mcp.md, Limits). */
export interface McpLimits {
  /** Text a read returns at most, in bytes (read_text_file, read_multiple_files, diffs). */
  readonly maxReadBytes: number;
  /** Largest file read_media_file returns (base64 in the response). */
  readonly maxMediaBytes: number;
  /** Entries directory_tree and list_directory_with_sizes return at most. */
  readonly maxEntries: number;
}

export const DEFAULT_LIMITS: McpLimits = {
  maxReadBytes: 256 * 1024,
  maxMediaBytes: 10 * 1024 * 1024,
  maxEntries: 1000,
};

/** All four hints, always set: no tool leaves a client guessing. */
export interface Annotations extends ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

export const READ: Annotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export interface ToolOutput<S> {
  readonly structured: S;
  /** The text content for the model; ignored when `content` is given. */
  readonly text: string;
  readonly content?: ContentBlock[];
}

type Shape = z.ZodRawShape;
type Args<I extends Shape> = z.output<z.ZodObject<I>>;

export interface ToolDefinition<I extends Shape, O extends Shape> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly annotations: Annotations;
  /** Changes something: such tools are not registered at all for a read-only key. */
  readonly writes: boolean;
  run(args: Args<I>, ctx: ToolContext): Promise<ToolOutput<Args<O>>>;
}

/** A definition with its types erased, for lists of tools. */
export interface AnyTool {
  readonly name: string;
  readonly writes: boolean;
  register(server: McpServer, ctx: ToolContext): void;
}

export function defineTool<I extends Shape, O extends Shape>(def: ToolDefinition<I, O>): AnyTool {
  return {
    name: def.name,
    writes: def.writes,
    register(server, ctx) {
      server.registerTool(
        def.name,
        {
          title: def.title,
          description: def.description,
          inputSchema: z.object(def.input),
          outputSchema: z.object(def.output),
          annotations: def.annotations,
        },
        async (args: unknown) => {
          try {
            // The SDK validated `args` against `def.input` before calling.
            const out = await def.run(args as Args<I>, ctx);
            return {
              content: out.content ?? [{ type: 'text', text: out.text }],
              structuredContent: out.structured as Record<string, unknown>,
            };
          } catch (error) {
            return toolError(error);
          }
        },
      );
    },
  };
}

// A "." or ".." segment written with percent escapes: a URL-style traversal attempt.
const ENCODED_DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * A path argument through core's validation (`normalizePath`), refusing in addition segments
 * that are "." or ".." once percent-decoded ("%2e%2e/x"): an agent that writes them means
 * traversal, not a file literally named "%2e%2e". INVALID_PATH either way.
 */
export function checkPath(input: string): string {
  if (ENCODED_DOT_SEGMENT.test(input) && /%2e/i.test(input)) {
    throw new SatchelError(
      'INVALID_PATH',
      `invalid path ${JSON.stringify(input)}: percent-encoded "." and ".." segments are not allowed`,
      { path: input, reason: 'encoded_dot_segment' },
    );
  }
  return normalizePath(input);
}

export interface ToolContextOptions {
  readonly satchel: Satchel;
  readonly limits: McpLimits;
  /** The configured default workspace (`--workspace`, SATCHEL_WORKSPACE). */
  readonly workspace?: string | undefined;
  /** Session label stored on every version and audit entry this server causes. */
  readonly session?: string | undefined;
}

export class ToolContext {
  readonly satchel: Satchel;
  readonly limits: McpLimits;
  #default: string | undefined;
  readonly #session: string | undefined;

  constructor(options: ToolContextOptions) {
    this.satchel = options.satchel;
    this.limits = options.limits;
    this.#default = options.workspace;
    this.#session = options.session;
  }

  /** Options every engine call carries: the session label, when there is one. */
  call(): CallOptions {
    return this.#session === undefined ? {} : { session: this.#session };
  }

  /**
   * The workspace of a call: the argument, else the configured default, else the only workspace
   * the key sees (remembered for the rest of the session). INVALID_INPUT naming the choices when
   * there are several or none.
   */
  async workspace(given: string | undefined): Promise<string> {
    if (given !== undefined && given !== '') return given;
    if (this.#default !== undefined) return this.#default;
    const page = await this.satchel.listWorkspaces({ limit: 20 });
    const only = page.items.length === 1 && page.nextCursor === null ? page.items[0] : undefined;
    if (only !== undefined) {
      this.#default = only.name;
      return only.name;
    }
    const names = page.items.map((w) => w.name);
    throw new SatchelError(
      'INVALID_INPUT',
      names.length === 0
        ? 'no workspace given and none exists yet: create one with create_workspace'
        : `no workspace given and several exist: pass workspace, one of ${names.join(', ')}${page.nextCursor === null ? '' : ', … (see list_workspaces)'}`,
      { field: 'workspace', choices: names },
    );
  }
}

/** The optional `workspace` argument of every workspace-scoped tool. */
export const WorkspaceArg = z
  .string()
  .optional()
  .describe('workspace name; default: the server default, or the only workspace your key sees');

export const PathArg = z
  .string()
  .describe('path inside the workspace, POSIX and absolute, e.g. /reports/q3.md');
