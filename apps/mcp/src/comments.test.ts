/**
 * The review loop over MCP with the SDK's real Client: a person comments on lines 3–5, the
 * agent lists the open thread, replies, edits the file and resolves the thread.
 */
import { describe, expect, it } from 'vitest';
import { call, connect, errorOf, ok, openEngine, textOf } from './test-support/client.js';

describe('comment tools', () => {
  it('list, reply to and resolve a comment a person left', async () => {
    const engine = await openEngine();
    await engine.writeFile('ws', '/report.md', 'a\nb\nc\nd\ne\nf\n');
    const person = await engine.addComment('ws', {
      path: '/report.md',
      startLine: 3,
      endLine: 5,
      body: 'cite a source',
    });
    const client = await connect(engine, { workspace: 'ws' });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['list_comments', 'add_comment', 'resolve_comment']),
    );

    await engine.writeFile('ws', '/report.md', 'title\na\nb\nc\nd\ne\nf\n');
    const listed = await call(client, 'list_comments', { status: 'open' });
    expect(textOf(listed)).toContain(`${person.id} /report.md L3-5@`);
    expect(textOf(listed)).toContain('now L4-6');
    expect(listed.structuredContent).toMatchObject({
      threads: [{ id: person.id, outdated: false, current: { startLine: 4, endLine: 6 } }],
    });

    const reply = await ok<{ threadId: string }>(client, 'add_comment', {
      parentId: person.id,
      body: 'added a citation',
    });
    expect(reply.threadId).toBe(person.id);
    const own = await ok<{ id: string }>(client, 'add_comment', {
      path: '/report.md',
      startLine: 1,
      endLine: 1,
      body: 'new title ok?',
    });
    expect(own.id).toMatch(/^cm_/);

    const resolved = await ok(client, 'resolve_comment', { id: person.id });
    expect(resolved).toMatchObject({ resolved: true, replyCount: 1 });
    const open = await ok<{ threads: { id: string }[] }>(client, 'list_comments', {
      status: 'open',
    });
    expect(open.threads.map((t) => t.id)).toEqual([own.id]);

    const bad = await call(client, 'add_comment', {
      path: '/report.md',
      startLine: 2,
      endLine: 99,
      body: 'x',
    });
    expect(bad.isError).toBe(true);
    expect(errorOf(bad)).toMatchObject({ code: 'INVALID_INPUT' });
  });
});
