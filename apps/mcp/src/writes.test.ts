/**
 * Writes as agents sharing one key see them: a lock keeps the holder's other workers out, a
 * retried write answers `unchanged`, and a write without a workspace is never guessed wrongly.
 */
import type { SatchelEngine } from '@satchel/core';
import { describe, expect, it } from 'vitest';
import { call, connect, errorOf, ok, openEngine, textOf } from './test-support/client.js';

async function agent(engine: SatchelEngine, name: string) {
  await engine.createPrincipal({ name, kind: 'agent' });
  const key = (await engine.createKey({ principal: name })).key;
  return engine.as(await engine.authenticate(key));
}

describe('writes of agents that share a key', () => {
  it('a lock refuses the holder’s other worker until it presents the token', async () => {
    const engine = await openEngine();
    const workerA = await connect(engine);
    const workerB = await connect(engine);
    const lock = await ok<{ token: number }>(workerA, 'lock_file', { path: '/state.json' });
    const refused = await call(workerB, 'write_file', { path: '/state.json', content: '{}' });
    expect(errorOf(refused)).toMatchObject({ code: 'LOCKED', data: { reason: 'held' } });
    expect(textOf(refused)).toContain('lockToken');
    const fenced = await call(workerB, 'write_file', {
      path: '/state.json',
      content: '{}',
      lockToken: lock.token,
    });
    expect(fenced.isError).toBeFalsy();
  });

  it('a write retried after a lost answer gets the head back, unchanged, not a conflict', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    const first = await ok<{ seq: number }>(client, 'write_file', { path: '/r.md', content: 'v1' });
    const args = { path: '/r.md', content: 'v2', ifMatch: first.seq };
    const written = await ok<{ seq: number }>(client, 'write_file', args);
    const retried = await call(client, 'write_file', args);
    expect(retried.structuredContent).toMatchObject({ seq: written.seq, unchanged: true });
    expect(textOf(retried)).toContain('nothing written');
    const other = await call(client, 'write_file', { ...args, content: 'v3' });
    expect(errorOf(other)).toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect((await engine.listVersions('ws', '/r.md')).items).toHaveLength(2);
  });
});

describe('the workspace of a call without one', () => {
  it('is looked up on every call: a second workspace makes it ambiguous, and writes name theirs', async () => {
    const engine = await openEngine();
    const solo = await agent(engine, 'solo');
    await solo.createWorkspace('first');
    const client = await connect(solo);
    const written = await call(client, 'write_file', { path: '/a.md', content: 'a' });
    expect(written.structuredContent).toMatchObject({ path: '/a.md', workspace: 'first' });
    expect(textOf(written)).toContain('workspace: first');

    await ok(client, 'create_workspace', { name: 'second' });
    const ambiguous = await call(client, 'write_file', { path: '/b.md', content: 'b' });
    expect(errorOf(ambiguous)).toMatchObject({
      code: 'INVALID_INPUT',
      data: { field: 'workspace', choices: ['first', 'second'] },
    });
    await expect(solo.stat('first', '/b.md')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const named = await ok(client, 'write_file', {
      workspace: 'second',
      path: '/b.md',
      content: 'b',
    });
    expect(named).toMatchObject({ workspace: 'second' });
  });
});
