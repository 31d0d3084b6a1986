/** undo, fork_workspace, merge_workspace and redact over a real MCP client. */
import { describe, expect, it } from 'vitest';
import { call, connect, errorOf, ok, openEngine, textOf } from './test-support/client.js';

describe('changing the past over MCP', () => {
  it('forks, merges back after a preview, and undoes the merge', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    await engine.writeFile('ws', '/a.md', 'one\n');
    await ok(client, 'fork_workspace', { name: 'try' });
    await engine.writeFile('try', '/a.md', 'two\n');
    const preview = await call(client, 'merge_workspace', { workspace: 'ws', from: 'try' });
    expect(textOf(preview)).toContain('modify /a.md');
    expect((await engine.readText('ws', '/a.md')).text).toBe('one\n');
    const merged = await ok<{ session: string }>(client, 'merge_workspace', {
      workspace: 'ws',
      from: 'try',
      apply: true,
    });
    expect((await engine.readText('ws', '/a.md')).text).toBe('two\n');
    expect(
      textOf(await call(client, 'undo', { workspace: 'ws', session: merged.session })),
    ).toContain('revert /a.md');
    await ok(client, 'undo', { workspace: 'ws', session: merged.session, apply: true });
    expect((await engine.readText('ws', '/a.md')).text).toBe('one\n');
  });

  it('redacts a version for owners; the read is then REDACTED', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    const v = await engine.writeFile('ws', '/.env', 'SECRET=1\n');
    await ok(client, 'redact', { path: '/.env', version: v.seq });
    expect(errorOf(await call(client, 'read_text_file', { path: '/.env' }))).toMatchObject({
      code: 'REDACTED',
    });
  });
});
