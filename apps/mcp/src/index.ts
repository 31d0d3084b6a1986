/** @satchel/mcp: the MCP server over a Satchel, and its stdio and Streamable HTTP transports. */

export type { ToolErrorContent } from './errors.js';
export { describeError, toolError } from './errors.js';
export type { McpHttpHandler, McpHttpOptions } from './http.js';
export { createMcpHttpHandler, originAllowed } from './http.js';
export type { McpServerOptions } from './server.js';
export { ALL_TOOLS, createMcpServer } from './server.js';
export { serveStdio } from './stdio.js';
export type { Annotations, McpLimits } from './tool.js';
export { DEFAULT_LIMITS } from './tool.js';
export { fileUri, parseFileUri, URI_TEMPLATE } from './uri.js';
