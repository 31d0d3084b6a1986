/** @satchel/mcp — the MCP server over a Satchel (issue 5). */
export {};
