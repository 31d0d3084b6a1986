/** The server as a client sees it: tools and their metadata, read-only mode, default workspace. */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { call, connect, errorOf, ok, openEngine, textOf } from './test-support/client.js';

const READ_TOOLS = [
  'read_text_file',
  'read_media_file',
  'read_multiple_files',
  'get_file_info',
  'list_directory',
  'list_directory_with_sizes',
  'directory_tree',
  'search_files',
  'grep',
  'search',
  'ask',
  'list_versions',
  'diff_versions',
  'get_changes',
  'list_locks',
  'list_workspaces',
  'list_members',
  'list_invitations',
  'create_download_url',
  'list_audit',
  'list_snapshots',
  'list_comments',
];
const WRITE_TOOLS = [
  'write_file',
  'append_file',
  'edit_file',
  'delete_file',
  'create_directory',
  'move_file',
  'copy_file',
  'restore_version',
  'create_snapshot',
  'lock_file',
  'renew_lock',
  'unlock_file',
  'create_workspace',
  'set_member',
  'accept_invitation',
  'decline_invitation',
  'create_upload_url',
  'remove_member',
  'offer_transfer',
  'accept_transfer',
  'delete_workspace',
  'add_comment',
  'resolve_comment',
];

// Tools about the caller rather than one workspace.
const NOT_IN_A_WORKSPACE = [
  'list_workspaces',
  'create_workspace',
  'list_invitations',
  'accept_invitation',
  'decline_invitation',
  'accept_transfer',
];

/**
 * A listed tool's hints with the MCP specification's defaults filled in: the listing leaves out
 * those equal to a default, and a read-only tool's destructive and idempotent hints.
 */
function hints(a: ToolAnnotations | undefined) {
  const readOnlyHint = a?.readOnlyHint ?? false;
  return {
    readOnlyHint,
    destructiveHint: readOnlyHint ? false : (a?.destructiveHint ?? true),
    idempotentHint: readOnlyHint ? true : (a?.idempotentHint ?? false),
    openWorldHint: a?.openWorldHint ?? true,
  };
}

describe('tools/list', () => {
  it('lists every tool with its annotations, a description and schemas', async () => {
    const client = await connect(await openEngine());
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of [...READ_TOOLS, ...WRITE_TOOLS]) expect(names).toContain(name);
    for (const tool of tools) {
      const a = hints(tool.annotations);
      expect(a.openWorldHint, tool.name).toBe(false);
      expect(a.readOnlyHint, tool.name).toBe(READ_TOOLS.includes(tool.name));
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(25);
      expect(tool.inputSchema.type).toBe('object');
      // Output schemas are left out of tools/list: they were 45% of it (docs/mcp.md).
      expect(tool.outputSchema, tool.name).toBeUndefined();
      if (!NOT_IN_A_WORKSPACE.includes(tool.name)) {
        expect(tool.inputSchema.properties, tool.name).toHaveProperty('workspace');
      }
    }
    const write = tools.find((t) => t.name === 'write_file');
    expect(write?.inputSchema.required).toEqual(['path', 'content']);
    expect(write?.inputSchema.properties).toHaveProperty('ifMatch');
    expect(write?.inputSchema.properties).toHaveProperty('lockToken');
    // Spelled out only where a default does not already say it.
    expect(write?.annotations).toEqual({ idempotentHint: true, openWorldHint: false });
    expect(hints(write?.annotations)).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(hints(tools.find((t) => t.name === 'append_file')?.annotations)).toMatchObject({
      destructiveHint: false,
      idempotentHint: false,
    });
  });

  it('a read-only key does not even list the write tools; --read-only neither', async () => {
    const engine = await openEngine();
    await engine.createPrincipal({ name: 'reader', kind: 'agent' });
    await engine.setMember('ws', 'reader', 'editor');
    const key = (await engine.createKey({ principal: 'reader', readOnly: true })).key;
    const viaKey = await connect(engine.as(await engine.authenticate(key)));
    const viaFlag = await connect(engine, { readOnly: true });
    for (const client of [viaKey, viaFlag]) {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual([...READ_TOOLS].sort());
      const refused = await call(client, 'write_file', { path: '/x', content: 'x' });
      expect(refused.isError).toBe(true);
    }
    expect((await engine.list('ws')).total).toBe(0);
  });
});

describe('default workspace', () => {
  it('uses --workspace, else the only workspace, else asks for one by name', async () => {
    const engine = await openEngine();
    const only = await connect(engine);
    await ok(only, 'write_file', { path: '/a.md', content: 'a' });
    expect((await engine.readText('ws', '/a.md')).text).toBe('a');

    await engine.createWorkspace('second');
    const configured = await connect(engine, { workspace: 'second' });
    await ok(configured, 'write_file', { path: '/b.md', content: 'b' });
    expect((await engine.readText('second', '/b.md')).text).toBe('b');

    const ambiguous = await connect(engine);
    const result = await call(ambiguous, 'read_text_file', { path: '/a.md' });
    expect(errorOf(result)).toMatchObject({ code: 'INVALID_INPUT' });
    expect(textOf(result)).toContain('pass workspace, one of second, ws');
    const explicit = await ok(ambiguous, 'read_text_file', { path: '/a.md', workspace: 'ws' });
    expect(explicit.text).toBe('a');
  });
});

describe('bounded responses', () => {
  it('reads stop at the read limit and say where to continue', async () => {
    const engine = await openEngine();
    const client = await connect(engine, { limits: { maxReadBytes: 100 } });
    const text = Array.from({ length: 50 }, (_, i) => `row ${String(i).padStart(3, '0')}\n`).join(
      '',
    );
    await engine.writeFile('ws', '/big.txt', text);
    const first = await ok(client, 'read_text_file', { path: '/big.txt' });
    expect(first).toMatchObject({ lineStart: 1, lineEnd: 12, truncated: true, nextOffset: 13 });
    const next = await ok(client, 'read_text_file', { path: '/big.txt', offset: 13 });
    expect(next.text).toMatch(/^row 012\n/);
    const many = await ok<{ files: Array<{ text: string | null }>; truncated: boolean }>(
      client,
      'read_multiple_files',
      { paths: ['/big.txt', '/big.txt'] },
    );
    expect(many.truncated).toBe(true);
    expect(many.files[1]?.text).toBeNull();
  });

  it('listings page with totals; trees stop at depth and entry bounds', async () => {
    const engine = await openEngine();
    const client = await connect(engine, { limits: { maxEntries: 5 } });
    await engine.writeFiles(
      'ws',
      Array.from({ length: 8 }, (_, i) => ({ path: `/d/sub/f${i}.md`, content: `${i}` })),
    );
    const page = await ok(client, 'list_directory', { path: '/d/sub', limit: 3 });
    expect(page).toMatchObject({ total: 8 });
    const rest = await ok(client, 'list_directory', { path: '/d/sub', cursor: page.nextCursor });
    expect((rest.entries as unknown[]).length).toBe(5);

    const shallow = await ok(client, 'directory_tree', { path: '/', maxDepth: 1 });
    expect(shallow).toMatchObject({ entries: 1, total: 10, truncated: true });
    // A folder the depth cut is marked, not shown as empty.
    expect(shallow.tree).toEqual([{ name: 'd', children: [], truncated: true }]);
    expect(textOf(await call(client, 'directory_tree', { maxDepth: 1 }))).toMatch(/^d\/ …\n/);
    const capped = await ok(client, 'directory_tree', { path: '/' });
    expect(capped).toMatchObject({ entries: 5, truncated: true });
    const sized = await ok(client, 'list_directory_with_sizes', { path: '/d/sub', sortBy: 'size' });
    expect(sized).toMatchObject({ total: 8, truncated: true, files: 5 });

    const search = await ok(client, 'search_files', {
      pattern: '**/*.md',
      excludePatterns: ['f0.md', 'f1.md'],
      limit: 4,
    });
    expect(search).toMatchObject({ total: 8 });
    expect((search.matches as Array<{ path: string }>).map((m) => m.path)).toEqual([
      '/d/sub/f2.md',
      '/d/sub/f3.md',
      '/d/sub/f4.md',
      '/d/sub/f5.md',
    ]);
  });
});

describe('get_changes', () => {
  it('refuses a since past the head and names the since to use instead', async () => {
    const engine = await openEngine();
    await engine.writeFile('ws', '/a.md', 'a');
    const client = await connect(engine);
    const refused = await call(client, 'get_changes', { since: 42 });
    expect(errorOf(refused)).toMatchObject({
      code: 'INVALID_INPUT',
      data: { head: 1, reason: 'cursor_beyond_head' },
    });
    expect(textOf(refused)).toContain('call get_changes with since 1');
    const next = await call(client, 'get_changes', { since: 1 });
    expect(next.isError).toBeFalsy();
  });
});
