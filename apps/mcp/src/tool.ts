/**
 * What a tool is (metadata, the operation it calls, schemas, hints, a handler) and what every
 * handler gets: the Satchel, the limits, the default workspace and path checks. `defineTool` turns
 * a definition into an SDK tool, mapping every failure to an `isError` result (errors.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ContentBlock, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import {
  type CallOptions,
  normalizeFilePath,
  normalizePath,
  OPERATIONS,
  type OperationName,
  type Operations,
  parseOptions,
  type Satchel,
  SatchelError,
} from '@satchel/core';
import { z } from 'zod';
import { explainNotFound, toolError } from './errors.js';
import { listingOf } from './listing.js';

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

/**
 * All four hints, always decided: no tool leaves a client guessing (the listing leaves out the
 * ones equal to the specification's defaults, listing.ts `listedAnnotations`).
 */
export interface Annotations extends ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

/** What a client may assume of a tool that changes something (a read is neither). */
export interface WriteHints {
  /** It may replace or delete what is there (an older version stays in the history). */
  readonly destructive: boolean;
  /** Calling it again with the same arguments changes nothing more. */
  readonly idempotent: boolean;
}

/** Annotations of a tool: read-only exactly when its operation mutates nothing. */
function annotationsOf(tool: string, mutates: boolean, hints: WriteHints | undefined): Annotations {
  // Both mistakes would mislabel a tool to every client: refuse them when the module loads.
  if (mutates !== (hints !== undefined)) {
    throw new Error(`tool ${tool}: hints are declared for tools that write, and only for them`);
  }
  return {
    readOnlyHint: !mutates,
    destructiveHint: hints?.destructive ?? false,
    idempotentHint: hints?.idempotent ?? true,
    openWorldHint: false,
  };
}

// A tool argument that is an operation's own takes its schema from the table, here; a tool may
// narrow it (a smaller limit, an agent-facing description), never widen it. These throw only for
// a name the table lacks, which the types already refuse.

type ArgName<K extends OperationName> = Operations[K]['args'][number][0];
type ArgSchema<K extends OperationName, N> = Extract<
  Operations[K]['args'][number],
  readonly [N, z.ZodType]
>[1];

/** The schema of operation `op`'s positional argument `name`. */
export function argOf<K extends OperationName, N extends ArgName<K>>(
  op: K,
  name: N,
): ArgSchema<K, N> {
  const args: readonly (readonly [string, z.ZodType])[] = OPERATIONS[op].args;
  const found = args.find(([n]) => n === name);
  if (found === undefined) throw new Error(`operation ${op} has no argument ${name}`);
  return found[1] as ArgSchema<K, N>;
}

/** The options object of operation `op`; pick the fields the tool exposes (never `session`). */
export function optionsOf<K extends OperationName>(op: K): NonNullable<Operations[K]['options']> {
  const options = OPERATIONS[op].options;
  if (options === undefined) throw new Error(`operation ${op} takes no options`);
  return options as NonNullable<Operations[K]['options']>;
}

/** The result schema of operation `op`. */
export function resultOf<K extends OperationName>(op: K): NonNullable<Operations[K]['result']> {
  const result = OPERATIONS[op].result;
  if (result === undefined) throw new Error(`operation ${op} returns nothing`);
  return result as NonNullable<Operations[K]['result']>;
}

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
  /**
   * The operation the tool calls (the main one, for tools that call several): whether the tool
   * writes — and so its readOnlyHint, and whether a read-only key sees it — is whether that
   * operation mutates.
   */
  readonly operation: OperationName;
  /** Required for tools whose operation mutates, refused for the others. */
  readonly hints?: WriteHints;
  readonly input: I;
  /** The structured result's schema; absent for tools whose text says it all (fewer tokens). */
  readonly output?: O;
  run(args: Args<I>, ctx: ToolContext): Promise<ToolOutput<Args<O>>>;
}

/** A definition with its types erased, for lists of tools. */
export interface AnyTool {
  readonly name: string;
  /** Changes something: such tools are not listed at all for a read-only connection. */
  readonly writes: boolean;
  /** The tool as tools/list shows it (see `listingOf`). */
  readonly listing: Tool;
  /** Registers the handler; on a read-only connection a tool that writes only refuses. */
  register(server: McpServer, ctx: ToolContext, readOnly: boolean): void;
}

// What every argument object accepts as far as the SDK is concerned: the tool parses it itself,
// strictly, so an unknown or malformed argument is INVALID_INPUT naming it (not the SDK's
// "Input validation error", not silently dropped).
const ANY_ARGS = z.object({}).loose();

function readOnlyRefusal(tool: string): SatchelError {
  return new SatchelError(
    'FORBIDDEN',
    `${tool} changes files, and this connection is read-only (a read-only key, a viewer role, or a server started with --read-only)`,
    { reason: 'read_only', tool },
  );
}

const WrittenWorkspace = z.string().optional().describe('the workspace written');

/**
 * The result of a tool call as the client gets it. A tool that writes names the workspace it
 * wrote (structured `workspace` and a line of text), so a default never changes a workspace
 * unseen.
 */
function callResult(out: ToolOutput<unknown>, written: string | undefined) {
  const structured = out.structured as Record<string, unknown>;
  const content: ContentBlock[] = out.content ?? [{ type: 'text', text: out.text }];
  if (written === undefined || 'workspace' in structured) {
    return { content, structuredContent: structured };
  }
  return {
    content: [...content, { type: 'text' as const, text: `workspace: ${written}` }],
    structuredContent: { ...structured, workspace: written },
  };
}

export function defineTool<I extends Shape, O extends Shape>(def: ToolDefinition<I, O>): AnyTool {
  const writes = OPERATIONS[def.operation].mutates;
  const annotations = annotationsOf(def.name, writes, def.hints);
  const output =
    def.output === undefined || !writes || 'workspace' in def.output
      ? def.output
      : { ...def.output, workspace: WrittenWorkspace };
  const input = z.object(def.input).strict();
  return {
    name: def.name,
    writes,
    listing: listingOf(def as unknown as ToolDefinition<Shape, Shape>, input, annotations),
    register(server, ctx, readOnly) {
      server.registerTool(
        def.name,
        {
          title: def.title,
          description: def.description,
          inputSchema: ANY_ARGS,
          ...(output === undefined ? {} : { outputSchema: z.object(output) }),
          annotations,
        },
        async (raw: Record<string, unknown>) => {
          try {
            if (readOnly && writes) throw readOnlyRefusal(def.name);
            const args = parseOptions(input, raw) as Args<I>;
            const call = ctx.forCall();
            const out = await def.run(args, call);
            return callResult(out, writes ? call.resolvedWorkspace : undefined);
          } catch (error) {
            return toolError(await explainNotFound(error, ctx, raw.workspace), def.name);
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

/** A path that names a file to create or replace: checkPath, and no trailing "/" (core's rule). */
export function checkFilePath(input: string): string {
  checkPath(input);
  return normalizeFilePath(input);
}

export interface ToolContextOptions {
  readonly satchel: Satchel;
  readonly limits: McpLimits;
  /** The configured default workspace (`--workspace`, SATCHEL_WORKSPACE). */
  readonly workspace?: string | undefined;
  /**
   * Session label stored on every version and audit entry this server causes; a function when
   * it is known only once the client has introduced itself (createMcpServer's default).
   */
  readonly session?: string | (() => string | undefined) | undefined;
  /**
   * Origin the client reached this server at (`http://127.0.0.1:8787`), for signed URLs the
   * engine makes relative (no SATCHEL_PUBLIC_URL); unknown over stdio.
   */
  readonly baseUrl?: string | undefined;
}

export class ToolContext {
  readonly satchel: Satchel;
  readonly limits: McpLimits;
  readonly #options: ToolContextOptions;
  #resolved: string | undefined;

  constructor(options: ToolContextOptions) {
    this.satchel = options.satchel;
    this.limits = options.limits;
    this.#options = options;
  }

  /** A context for one tool call, which remembers the workspace the call resolved. */
  forCall(): ToolContext {
    return new ToolContext(this.#options);
  }

  /** The workspace `workspace()` last resolved in this call's context, if any. */
  get resolvedWorkspace(): string | undefined {
    return this.#resolved;
  }

  /**
   * A signed URL an agent can hand to curl: a relative one (`/signed/…`, no SATCHEL_PUBLIC_URL)
   * made absolute with the origin this connection reached, as the REST route does.
   */
  absoluteUrl(url: string): string {
    const base = this.#options.baseUrl;
    return url.startsWith('/') && base !== undefined ? new URL(url, base).href : url;
  }

  /** Options every engine call carries: the session label, when there is one. */
  call(): CallOptions {
    const { session } = this.#options;
    const label = typeof session === 'function' ? session() : session;
    return label === undefined ? {} : { session: label };
  }

  /**
   * The workspace of a call: the argument, else the configured default, else the only workspace
   * the key sees — looked up on every call, never remembered, so a second workspace created
   * meanwhile makes an unnamed call ambiguous instead of silently landing in the first.
   * INVALID_INPUT naming the choices when there are several or none.
   */
  async workspace(given: string | undefined): Promise<string> {
    this.#resolved = await this.#choose(given);
    return this.#resolved;
  }

  async #choose(given: string | undefined): Promise<string> {
    if (given !== undefined && given !== '') return given;
    if (this.#options.workspace !== undefined) return this.#options.workspace;
    const page = await this.satchel.listWorkspaces({ limit: 20 });
    const only = page.items.length === 1 && page.nextCursor === null ? page.items[0] : undefined;
    if (only !== undefined) return only.name;
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

/**
 * The optional `workspace` argument of every workspace-scoped tool. Undescribed: the server's
 * instructions say once what it defaults to, instead of 30 descriptions saying it again.
 */
export const WorkspaceArg = z.string().optional();

/** A path argument; the instructions say once that paths are absolute inside the workspace. */
export const PathArg = z.string();

/** The lockToken argument of every tool that writes (core's). */
export const LockTokenArg = optionsOf('writeFile').shape.lockToken;

/**
 * The `at` of the tools that read the past (core's AtSchema): a seq, or a snapshot's name. Like
 * the two below, explained once in the instructions (DESCRIBED_ONCE).
 */
export const AtArg = optionsOf('readText').shape.at;

/** The ifMatch argument of every tool that replaces or removes. */
export const IfMatchArg = optionsOf('writeFile').shape.ifMatch;
