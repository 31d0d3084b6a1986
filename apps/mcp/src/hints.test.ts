/** Every error's next step names something that exists in MCP, and points the right way. */
import { ERROR_CODES, SatchelError } from '@satchel/core';
import { describe, expect, it } from 'vitest';
import { describeError } from './errors.js';
import { ALL_TOOLS } from './server.js';
import { call, connect, errorOf, openEngine, textOf } from './test-support/client.js';

const TOOLS = new Set(ALL_TOOLS.map((t) => t.name));
/** Every argument name in a JSON Schema, nested ones (edits[].replaceAll) included. */
function argumentsOf(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const { properties, items } = schema as { properties?: Record<string, unknown>; items?: unknown };
  const own = Object.entries(properties ?? {});
  return [
    ...own.map(([name]) => name),
    ...own.flatMap(([, value]) => argumentsOf(value)),
    ...argumentsOf(items),
  ];
}
const ARGUMENTS = new Set(ALL_TOOLS.flatMap((t) => argumentsOf(t.listing.inputSchema)));

// The data variants the hints read; each code is tried with every one of them.
const DATA: Record<string, unknown>[] = [
  {},
  { path: '/a.md' },
  { path: '/a.md', what: 'version' },
  { path: '/a.md', deletedAt: 5, restorable: 4 },
  { path: '/a.md', seq: 3 },
  { lockId: 'l1' },
  { snapshot: 'before-run' },
  { path: '/a.md', at: 4 },
  { snapshot: 'before-run', seq: 3, reason: 'snapshot_exists' },
  { workspace: 'ws' },
  { field: 'workspace' },
  { field: 'overwrite', reason: 'unknown_argument' },
  { reason: 'binary', path: '/b.bin' },
  { reason: 'text_file', path: '/a.md' },
  { reason: 'directory', path: '/d' },
  { reason: 'invalid_glob', field: 'glob' },
  { reason: 'cursor_beyond_head', head: 7 },
  { reason: 'type_mismatch', path: '/a' },
  { reason: 'read_only' },
  { reason: 'stale_token' },
  { holder: 'agent-b', expiresAt: '2030-01-01T00:00:00Z', lockId: 'l2' },
  { expected: 3, actual: 4 },
  { expected: 0, actual: null },
  { expected: '*', actual: 2 },
  { matches: 0, candidates: [{ line: 3, text: 'near' }] },
  { matches: 2, candidates: [{ line: 1, text: 'x' }] },
  { retryAfter: 3 },
];

/** Names in a hint that look like a tool (snake_case) or an argument (camelCase). */
function namesIn(hint: string): { tools: string[]; args: string[] } {
  const tools = hint.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [];
  const args = (hint.match(/\b[a-z]+[A-Z][A-Za-z]*\b/g) ?? []).filter((w) => w !== 'oldText');
  return { tools, args };
}

describe('error hints', () => {
  it('name only tools and arguments that exist, for every code × tool × data', () => {
    let checked = 0;
    for (const tool of TOOLS) {
      for (const code of ERROR_CODES) {
        for (const data of DATA) {
          const { hint } = describeError(new SatchelError(code, 'x', data), tool);
          const names = namesIn(hint);
          for (const name of names.tools) expect(TOOLS, `${code} ${tool}: ${hint}`).toContain(name);
          for (const arg of names.args)
            expect(ARGUMENTS, `${code} ${tool}: ${hint}`).toContain(arg);
          // No advice only a terminal can follow.
          expect(hint, `${code} ${tool}`).not.toMatch(/\bsatchel [a-z]/);
          checked++;
        }
      }
    }
    expect(checked).toBe(TOOLS.size * ERROR_CODES.length * DATA.length);
  });

  it('point the right way for what agents met (issue 16, item 6)', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    const hintOf = async (tool: string, args: Record<string, unknown>) => {
      const result = await call(client, tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      return (errorOf(result)?.hint as string) ?? '';
    };
    await engine.writeFile('ws', '/a.md', 'a');
    await engine.writeFile('ws', '/b.bin', Buffer.from([0, 1, 2, 3]));
    const kept = await engine.writeFile('ws', '/gone.md', 'soon deleted');
    const { seq: deletedAt } = await engine.remove('ws', '/gone.md');

    expect(await hintOf('unlock_file', { lockId: 'nope' })).toContain('list_locks');
    expect(await hintOf('read_text_file', { path: '/a.md', version: 999 })).toContain(
      'list_versions',
    );
    expect(await hintOf('read_text_file', { path: '/b.bin' })).toContain('read_media_file');
    expect(await hintOf('read_text_file', { path: '/gone.md' })).toContain(
      `deleted at version ${deletedAt}: restore_version with version ${kept.seq}`,
    );
    expect(await hintOf('create_workspace', { name: 'ws' })).toContain(
      'a workspace with this name exists',
    );
    const never = await hintOf('write_file', { path: '/never.md', content: 'x', ifMatch: 0 });
    expect(never).toContain('does not exist (never written, or deleted)');
    expect(never).toContain('ifNoneMatch');
    expect(await hintOf('read_text_file', { path: '/missing.md' })).toContain('list_directory');

    // The same principal's lock (another worker sharing the key) keeps this write out too.
    await engine.acquireLock('ws', { path: '/a.md' });
    expect(await hintOf('write_file', { path: '/a.md', content: 'b' })).toContain(
      "If the lock is yours, pass its token as lockToken: a lock keeps out every write without it, the holder's own included",
    );

    const readOnly = await connect(engine, { readOnly: true });
    const refused = await call(readOnly, 'write_file', { path: '/x.md', content: 'x' });
    expect(errorOf(refused)).toMatchObject({ code: 'FORBIDDEN', data: { reason: 'read_only' } });
    expect(textOf(refused)).toContain('this connection is read-only');
  });
});
