/** Reading the past over MCP: snapshots, and `at` (a seq or a snapshot) on the reading tools. */
import { describe, expect, it } from 'vitest';
import { call, connect, errorOf, ok, openEngine, textOf } from './test-support/client.js';

/** A workspace with a history: /a.md v1 and /dir/b.md, a snapshot, then a rewrite and a delete. */
async function history() {
  const engine = await openEngine();
  const client = await connect(engine);
  const first = await engine.writeFile('ws', '/a.md', 'first\n');
  await engine.writeFile('ws', '/dir/b.md', 'bee\n');
  const snapshot = await ok(client, 'create_snapshot', {
    name: 'before-cleanup',
    message: 'before the agent tidies up',
  });
  await engine.writeFile('ws', '/a.md', 'second, longer\n');
  await engine.remove('ws', '/dir', { recursive: true });
  return { engine, client, first, snapshot };
}

describe('create_snapshot and list_snapshots', () => {
  it('name the head, list it, and refuse the same name twice with a hint', async () => {
    const { client, snapshot } = await history();
    expect(snapshot).toMatchObject({ name: 'before-cleanup', workspace: 'ws' });
    const { snapshots } = await ok<{ snapshots: Array<Record<string, unknown>> }>(
      client,
      'list_snapshots',
    );
    expect(snapshots).toEqual([
      expect.objectContaining({
        name: 'before-cleanup',
        seq: snapshot.seq,
        message: 'before the agent tidies up',
      }),
    ]);
    const again = await call(client, 'create_snapshot', { name: 'before-cleanup' });
    expect(errorOf(again)).toMatchObject({ code: 'CONFLICT' });
    expect(textOf(again)).toContain('list_snapshots');
  });

  it('a read-only connection lists snapshots but cannot create one', async () => {
    const engine = await openEngine();
    const reader = await connect(engine, { readOnly: true });
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).toContain('list_snapshots');
    expect(names).not.toContain('create_snapshot');
  });
});

describe('at', () => {
  it('reads a file, its info, a directory and the tree as they were at a snapshot', async () => {
    const { client } = await history();
    const at = 'before-cleanup';
    const read = await call(client, 'read_text_file', { path: '/a.md', at });
    expect(read.structuredContent).toMatchObject({ text: 'first\n' });
    expect(textOf(read)).toContain('as it was at before-cleanup');
    expect(textOf(read)).not.toContain('pass ifMatch');
    expect(await ok(client, 'get_file_info', { path: '/a.md', at })).toMatchObject({ size: 6 });

    const now = await ok<{ entries: Array<{ path: string }> }>(client, 'list_directory', {});
    expect(now.entries.map((e) => e.path)).toEqual(['/a.md']);
    const then = await ok<{ entries: Array<{ path: string }> }>(client, 'list_directory', { at });
    expect(then.entries.map((e) => e.path)).toEqual(['/a.md', '/dir']);

    const tree = await call(client, 'directory_tree', { at });
    expect(textOf(tree)).toBe('a.md 6\ndir/\ndir/b.md 4');
    expect(tree.structuredContent).toMatchObject({ total: 3, truncated: false });
  });

  it('takes a seq as a number or as digits', async () => {
    const { client, first } = await history();
    for (const at of [first.seq, String(first.seq)]) {
      const read = await ok(client, 'read_text_file', { path: '/a.md', at });
      expect(read).toMatchObject({ text: 'first\n', seq: first.seq });
    }
  });

  it('says what went wrong: a missing snapshot, a seq past the head, a file not there then', async () => {
    const { client, first } = await history();
    const unknown = await call(client, 'list_directory', { at: 'no-such-snapshot' });
    expect(errorOf(unknown)).toMatchObject({ code: 'NOT_FOUND' });
    expect(textOf(unknown)).toContain('list_snapshots');

    const future = await call(client, 'get_file_info', { path: '/a.md', at: 999 });
    expect(errorOf(future)).toMatchObject({ code: 'INVALID_INPUT', data: { field: 'at' } });

    // /dir/b.md is deleted now, but the question was about seq 1, when it did not exist yet:
    // the hint is about then, not about restoring the deletion.
    const before = await call(client, 'read_text_file', { path: '/dir/b.md', at: first.seq });
    expect(errorOf(before)).toMatchObject({ code: 'NOT_FOUND' });
    expect(textOf(before)).toContain('did not exist at that seq');
    expect(textOf(before)).not.toContain('restore_version');

    const both = await call(client, 'read_text_file', { path: '/a.md', at: 1, version: 1 });
    expect(errorOf(both)).toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('greps and searches the files as they were', async () => {
    const { client } = await history();
    const at = 'before-cleanup';
    const now = await call(client, 'grep', { pattern: 'bee' });
    expect(textOf(now)).toBe('No matches found');
    const then = await call(client, 'grep', { pattern: 'bee', at });
    expect(textOf(then)).toBe('/dir/b.md:1: bee');

    const search = await call(client, 'search', { query: 'bee', at });
    expect(search.structuredContent).toMatchObject({ mode: 'scan', truncated: false });
    expect(textOf(search)).toContain('/dir/b.md (version');
    expect(textOf(search)).not.toContain('the index is at');
  });

  it('is listed as a seq or a name on the reading tools and fork_workspace', async () => {
    const client = await connect(await openEngine());
    const { tools } = await client.listTools();
    const withAt = tools.filter((t) => 'at' in (t.inputSchema.properties ?? {}));
    expect(withAt.map((t) => t.name).sort()).toEqual([
      'directory_tree',
      'fork_workspace',
      'get_file_info',
      'grep',
      'list_directory',
      'read_text_file',
      'search',
    ]);
    for (const tool of withAt) {
      expect(tool.inputSchema.properties?.at).toEqual({ type: ['integer', 'string'] });
    }
  });
});
