/**
 * Files as MCP resources (`satchel://<workspace>/<path>`): a resource template, a paginated
 * listing, reads, and subscriptions. Subscriptions follow the workspace's change feed
 * (`listChanges` long polls, one per subscribed workspace), so a change made by anyone — over
 * REST, by another agent, by another process — sends `notifications/resources/updated`.
 */
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { isSatchelError, type Satchel } from '@satchel/core';
import { describeError } from './errors.js';
import type { ToolContext } from './tool.js';
import { fileUri, parseFileUri, URI_TEMPLATE } from './uri.js';

const PAGE = 100;

/** A failed resource request as the JSON-RPC error it must be (resources have no isError). */
function resourceError(error: unknown): McpError {
  const { code, message, hint } = describeError(error, 'resources/read');
  const rpc =
    code === 'NOT_FOUND'
      ? -32002
      : code === 'INVALID_INPUT' || code === 'INVALID_PATH'
        ? ErrorCode.InvalidParams
        : ErrorCode.InternalError;
  return new McpError(rpc, `${code}: ${message}`, { code, hint });
}

interface ListCursor {
  readonly w: string;
  readonly c?: string | undefined;
}

function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(cursor: string | undefined): ListCursor | null {
  if (cursor === undefined) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      typeof value === 'object' &&
      value !== null &&
      'w' in value &&
      typeof value.w === 'string'
    ) {
      const c = 'c' in value && typeof value.c === 'string' ? value.c : undefined;
      return { w: value.w, c };
    }
  } catch {}
  throw new McpError(ErrorCode.InvalidParams, 'invalid cursor');
}

/** The workspaces resources/list walks: the default one, else every one the key sees. */
async function listedWorkspaces(ctx: ToolContext): Promise<string[]> {
  try {
    return [await ctx.workspace(undefined)];
  } catch (error) {
    if (!isSatchelError(error, 'INVALID_INPUT')) throw error;
  }
  return (await ctx.satchel.listWorkspaces({ limit: 1000 })).items.map((w) => w.name);
}

/** One page of files (files only, in path order), workspace after workspace. */
async function listPage(ctx: ToolContext, cursor: string | undefined) {
  const at = decodeCursor(cursor);
  const names = await listedWorkspaces(ctx);
  const index = at === null ? 0 : names.indexOf(at.w);
  const workspace = names[index];
  if (workspace === undefined) return { resources: [] };
  const page = await ctx.satchel.list(workspace, {
    ...ctx.call(),
    path: '/',
    recursive: true,
    cursor: at?.c,
    limit: PAGE,
  });
  const resources: Resource[] = page.items
    .filter((item) => item.type === 'file')
    .map((item) => ({
      uri: fileUri(workspace, item.path),
      name: item.path,
      title: `${workspace}:${item.path}`,
      size: item.size,
      ...(item.contentType === null ? {} : { mimeType: item.contentType }),
    }));
  const following = names[index + 1];
  const next =
    page.nextCursor !== null
      ? encodeCursor({ w: workspace, c: page.nextCursor })
      : following !== undefined
        ? encodeCursor({ w: following })
        : undefined;
  return next === undefined ? { resources } : { resources, nextCursor: next };
}

async function readResource(ctx: ToolContext, uri: string): Promise<ReadResourceResult> {
  const { workspace, path } = parseFileUri(uri);
  try {
    const slice = await ctx.satchel.readText(workspace, path, {
      ...ctx.call(),
      maxBytes: ctx.limits.maxReadBytes,
    });
    const mimeType = slice.info.contentType ?? 'text/plain';
    const meta = slice.truncated
      ? {
          _meta: {
            truncated: true,
            hint: `cut at the read limit; read on with read_text_file offset=${slice.lineEnd + 1}`,
          },
        }
      : {};
    return { contents: [{ uri, mimeType, text: slice.text, ...meta }] };
  } catch (error) {
    // Binary content: the bytes, base64, within the media limit.
    if (!isSatchelError(error, 'INVALID_INPUT') || !/binary/.test(error.message)) throw error;
  }
  const info = await ctx.satchel.stat(workspace, path);
  if (info.size > ctx.limits.maxMediaBytes) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `TOO_LARGE: ${path} has ${info.size} bytes, over the ${ctx.limits.maxMediaBytes}-byte limit of resource reads`,
      { code: 'TOO_LARGE' },
    );
  }
  const file = await ctx.satchel.readFile(workspace, path, { ...ctx.call(), version: info.seq });
  const pieces: Buffer[] = [];
  for await (const piece of file.body) pieces.push(Buffer.from(piece as Uint8Array));
  const mimeType = info.contentType ?? 'application/octet-stream';
  return { contents: [{ uri, mimeType, blob: Buffer.concat(pieces).toString('base64') }] };
}

/** Subscriptions of one server (one client session), driven by the change feed. */
export class Subscriptions {
  readonly #paths = new Map<string, Set<string>>();
  readonly #watching = new Set<string>();
  #closed = false;

  constructor(
    private readonly satchel: Satchel,
    private readonly notify: (uri: string) => Promise<void>,
    private readonly waitSeconds: number,
  ) {}

  /** Starts following `uri`; resolves once changes from now on are sure to be reported. */
  async subscribe(uri: string): Promise<void> {
    const { workspace, path } = parseFileUri(uri);
    const paths = this.#paths.get(workspace) ?? new Set();
    if (!this.#watching.has(workspace)) {
      // Also the permission check: NOT_FOUND for a workspace the key may not see.
      const { seq } = await this.satchel.getWorkspace(workspace);
      this.#paths.set(workspace, paths);
      paths.add(path);
      this.#watching.add(workspace);
      void this.#watch(workspace, seq);
      return;
    }
    paths.add(path);
  }

  unsubscribe(uri: string): void {
    const { workspace, path } = parseFileUri(uri);
    this.#paths.get(workspace)?.delete(path);
  }

  close(): void {
    this.#closed = true;
    this.#paths.clear();
  }

  async #watch(workspace: string, from: number): Promise<void> {
    let after = from;
    let failures = 0;
    const paths = () => this.#paths.get(workspace);
    while (!this.#closed && (paths()?.size ?? 0) > 0) {
      try {
        const page = await this.satchel.listChanges(workspace, {
          after,
          waitSeconds: this.waitSeconds,
          limit: 1000,
        });
        failures = 0;
        after = page.cursor;
        const changed = new Set<string>();
        for (const event of page.events) {
          if (paths()?.has(event.path)) changed.add(event.path);
          const origin = event.origin?.path;
          if (event.type === 'move' && origin !== undefined && paths()?.has(origin)) {
            changed.add(origin);
          }
        }
        for (const path of changed) {
          if (!this.#closed) await this.notify(fileUri(workspace, path)).catch(() => undefined);
        }
      } catch {
        // The workspace went away or the server is unreachable: back off, keep trying.
        failures++;
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(30_000, 500 * 2 ** failures)).unref(),
        );
      }
    }
    this.#watching.delete(workspace);
    this.#paths.delete(workspace);
  }
}

/**
 * Registers the file template and replaces the SDK's list and read handlers with ones that page
 * and check paths on the raw URI (URL parsing would resolve "%2e%2e" before anyone could refuse
 * it). Returns the subscriptions, to be closed with the server.
 */
export function registerResources(
  server: McpServer,
  ctx: ToolContext,
  waitSeconds: number,
): Subscriptions {
  server.registerResource(
    'file',
    new ResourceTemplate(URI_TEMPLATE, { list: undefined }),
    {
      title: 'Workspace file',
      description:
        'A file of a Satchel workspace; subscribe to be notified when anyone changes it. Text is cut at the read limit; use read_text_file for ranges.',
    },
    (uri) => readResource(ctx, uri.href),
  );
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  const subscriptions = new Subscriptions(
    ctx.satchel,
    (uri) => server.server.sendResourceUpdated({ uri }),
    waitSeconds,
  );
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw error instanceof McpError ? error : resourceError(error);
    }
  };
  server.server.setRequestHandler(ListResourcesRequestSchema, (request) =>
    guard(() => listPage(ctx, request.params?.cursor)),
  );
  server.server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    guard(() => readResource(ctx, request.params.uri)),
  );
  server.server.setRequestHandler(SubscribeRequestSchema, (request) =>
    guard(async () => {
      await subscriptions.subscribe(request.params.uri);
      return {};
    }),
  );
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) =>
    guard(async () => {
      subscriptions.unsubscribe(request.params.uri);
      return {};
    }),
  );
  return subscriptions;
}
