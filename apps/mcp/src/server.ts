/**
 * `createMcpServer`: the MCP server over a Satchel (the engine or a RemoteSatchel) — the tools of
 * CONTRACT.md, files as resources with subscriptions. Transports are the caller's business
 * (stdio.ts, http.ts, or an InMemoryTransport in tests).
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Satchel } from '@satchel/core';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { type AnyTool, DEFAULT_LIMITS, type McpLimits, ToolContext } from './tool.js';
import { commentTools } from './tools/comments.js';
import { fileTools } from './tools/files.js';
import { historyTools } from './tools/history.js';
import { lockTools } from './tools/locks.js';
import { memberTools } from './tools/members.js';
import { ownerTools } from './tools/owners.js';
import { pastTools } from './tools/past.js';
import { readTools } from './tools/read.js';
import { searchTools } from './tools/search.js';
import { snapshotTools } from './tools/snapshots.js';
import { transferTools } from './tools/transfers.js';
import { treeTools } from './tools/tree.js';
import { workspaceTools } from './tools/workspaces.js';

// Through the package's name, not `../package.json`: the CLI's bundle holds this module in its own
// dist/, one level below the CLI's package.json.
const { version } = createRequire(import.meta.url)('@satchel/mcp/package.json') as {
  version: string;
};

export interface McpServerOptions {
  /** Default workspace of every tool (`--workspace`, SATCHEL_WORKSPACE). */
  readonly workspace?: string | undefined;
  /** Register only the tools that change nothing, whatever the key may do (`--read-only`). */
  readonly readOnly?: boolean | undefined;
  /**
   * Session label stored on the versions and audit entries of this server's calls. Default: the
   * client's name from `initialize` and this connection, `<client name>#<8 hex digits>`.
   */
  readonly session?: string | undefined;
  /** Response bounds; see McpLimits for the defaults. */
  readonly limits?: Partial<McpLimits> | undefined;
  /**
   * Origin clients reach the server at, to make signed URLs absolute when the engine signs
   * relative ones (createMcpHttpHandler passes the request's origin).
   */
  readonly baseUrl?: string | undefined;
  /** Length of one change-feed long poll behind resource subscriptions (default 10 s). */
  readonly subscriptionWaitSeconds?: number | undefined;
}

/** Every tool, in the order tools/list shows them. */
export const ALL_TOOLS: readonly AnyTool[] = [
  ...readTools,
  ...fileTools,
  ...treeTools,
  ...searchTools,
  ...historyTools,
  ...snapshotTools,
  ...commentTools,
  ...pastTools,
  ...transferTools,
  ...lockTools,
  ...workspaceTools,
  ...memberTools,
  ...ownerTools,
];

/** `<client name>#<connection>`, once the client has introduced itself (undefined before). */
function clientSession(server: McpServer, connection: string): string | undefined {
  const name = server.server.getClientVersion()?.name.trim();
  if (name === undefined) return undefined;
  // The label is at most 200 characters (SessionSchema).
  return `${name === '' ? 'mcp' : name.slice(0, 100)}#${connection}`;
}

/** True when the key behind `satchel` can change nothing: a read-only key or a viewer ceiling. */
async function keyIsReadOnly(satchel: Satchel): Promise<boolean> {
  const { key } = await satchel.whoami();
  return key !== null && (key.readOnly || key.role === 'viewer');
}

function instructions(workspace: string | undefined, readOnly: boolean): string {
  return [
    'Satchel: persistent, versioned, shared file workspaces. Every write creates a version (list_versions, restore_version); nothing is lost.',
    workspace === undefined
      ? 'Pass workspace (a name from list_workspaces) to each tool, unless your key sees a single workspace.'
      : `Default workspace: ${workspace} (pass workspace to use another).`,
    'Paths are absolute inside the workspace, like /notes/plan.md. Reads, listings and searches are bounded: follow nextOffset / nextCursor for more.',
    'A version is the seq of the write that made it: reads return it, ifMatch takes it, list_versions lists them. version (a seq of that file) reads or restores one version of a file.',
    'at (a seq, or a snapshot name from create_snapshot) makes read_text_file, get_file_info, list_directory and directory_tree see the whole workspace as it was then.',
    'Errors start with a code (NOT_FOUND, PRECONDITION_FAILED, LOCKED…) and end with "Next step:", which names the tool to call.',
    'Working with others: read a file, then write with ifMatch set to the seq you read; on PRECONDITION_FAILED re-read and retry. Hold lock_file for multi-step changes, and pass its token as lockToken on every write under it (your own writes too).',
    readOnly ? 'This connection is read-only: tools that change files are not available.' : '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/**
 * The MCP server over `satchel`, acting as whoever `satchel` acts as. Tools a read-only key (or
 * `readOnly`) could not use are not registered at all. Resolves once the key's narrowing is known
 * (one `whoami` call). Closing the server ends its subscriptions.
 */
export async function createMcpServer(
  satchel: Satchel,
  options: McpServerOptions = {},
): Promise<McpServer> {
  const readOnly = options.readOnly === true || (await keyIsReadOnly(satchel));
  const server = new McpServer(
    { name: 'satchel', title: 'Satchel', version },
    { instructions: instructions(options.workspace, readOnly) },
  );
  const connection = randomBytes(4).toString('hex');
  const ctx = new ToolContext({
    satchel,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    workspace: options.workspace,
    session: options.session ?? (() => clientSession(server, connection)),
    baseUrl: options.baseUrl,
  });
  for (const tool of ALL_TOOLS) tool.register(server, ctx, readOnly);
  // tools/list in our compact form (tool.ts, listingOf), computed once. A read-only connection
  // does not list the tools that write; calling one anyway gets FORBIDDEN saying why.
  const listed = ALL_TOOLS.filter((tool) => !readOnly || !tool.writes).map((tool) => tool.listing);
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  registerPrompts(server);
  const subscriptions = registerResources(server, ctx, options.subscriptionWaitSeconds ?? 10);
  const previous = server.server.onclose;
  server.server.onclose = () => {
    subscriptions.close();
    previous?.();
  };
  return server;
}
