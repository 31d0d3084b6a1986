/**
 * Review comments: anchors that move with their lines or go outdated, threads, resolve,
 * who may do what, the audit entries, and the webhook events queued with them.
 */
import type { Satchel } from '@satchel/client/operations/satchel.js';
import { describe, expect, it } from 'vitest';
import { openTemp } from '../test-support/temp.js';
import type { SatchelEngine } from './satchel-engine.js';

const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n');

/** The engine acting as a new principal with `role` in ws (or a read-only key of one). */
async function as(
  engine: SatchelEngine,
  name: string,
  role: 'viewer' | 'editor' | 'owner' | null,
  readOnly = false,
): Promise<Satchel> {
  await engine.createPrincipal({ name, kind: 'user' });
  if (role !== null) await engine.setMember('ws', name, role);
  const { key } = await engine.createKey({ principal: name, ...(readOnly ? { readOnly } : {}) });
  return engine.as(await engine.authenticate(key));
}

describe('comment anchors', () => {
  it('move with their lines as the file changes, and go outdated when their lines change', async () => {
    const { satchel } = await openTemp();
    const v1 = await satchel.writeFile('ws', '/report.md', `${TEN}\n`);
    const c = await satchel.addComment('ws', {
      path: '/report.md',
      startLine: 3,
      endLine: 5,
      body: 'cite a source here',
    });
    expect(c).toMatchObject({
      path: '/report.md',
      threadId: c.id,
      parentId: null,
      author: 'admin',
    });

    const thread = await satchel.getComment('ws', c.id);
    expect(thread).toMatchObject({
      anchor: { version: v1.seq, startLine: 3, endLine: 5 },
      current: { version: v1.seq, startLine: 3, endLine: 5 },
      outdated: false,
      excerpt: 'line 3\nline 4\nline 5',
      resolved: false,
    });

    // Two lines inserted above: the range moves down by two.
    const v2 = await satchel.writeFile('ws', '/report.md', `intro\nmore\n${TEN}\n`);
    expect((await satchel.getComment('ws', c.id)).current).toEqual({
      version: v2.seq,
      startLine: 5,
      endLine: 7,
    });

    // Line 4 of the original is rewritten: outdated, with the original lines kept.
    await satchel.writeFile(
      'ws',
      '/report.md',
      `intro\nmore\n${TEN.replace('line 4', 'LINE FOUR')}\n`,
    );
    const outdated = await satchel.getComment('ws', c.id);
    expect(outdated).toMatchObject({
      outdated: true,
      current: null,
      excerpt: 'line 3\nline 4\nline 5',
    });

    // Deleted: outdated too.
    await satchel.remove('ws', '/report.md');
    expect((await satchel.getComment('ws', c.id)).outdated).toBe(true);
  });

  it('anchor to an older version when asked, and refuse lines the version does not have', async () => {
    const { satchel } = await openTemp();
    const v1 = await satchel.writeFile('ws', '/a.txt', 'a\nb\nc\n');
    await satchel.writeFile('ws', '/a.txt', 'zero\na\nb\nc\n');
    const c = await satchel.addComment('ws', {
      path: '/a.txt',
      version: v1.seq,
      startLine: 2,
      endLine: 2,
      body: 'b?',
    });
    expect((await satchel.getComment('ws', c.id)).current).toMatchObject({
      startLine: 3,
      endLine: 3,
    });
    await expect(
      satchel.addComment('ws', { path: '/a.txt', startLine: 2, endLine: 9, body: 'x' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', data: { field: 'endLine', lines: 4 } });
    await expect(
      satchel.addComment('ws', { path: '/nope.txt', startLine: 1, endLine: 1, body: 'x' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await satchel.writeFile('ws', '/b.bin', new Uint8Array([0, 1, 2, 10, 0]));
    await expect(
      satchel.addComment('ws', { path: '/b.bin', startLine: 1, endLine: 1, body: 'x' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('keep redacted content unreadable: no excerpt, outdated', async () => {
    const { satchel } = await openTemp();
    const v1 = await satchel.writeFile('ws', '/env', 'KEY=secret\nB=2\n');
    const c = await satchel.addComment('ws', {
      path: '/env',
      startLine: 1,
      endLine: 1,
      body: 'leak',
    });
    await satchel.redact('ws', '/env', { version: v1.seq });
    expect(await satchel.getComment('ws', c.id)).toMatchObject({ excerpt: null, outdated: true });
    await expect(
      satchel.addComment('ws', {
        path: '/env',
        version: v1.seq,
        startLine: 1,
        endLine: 1,
        body: 'x',
      }),
    ).rejects.toMatchObject({ code: 'REDACTED' });
  });
});

describe('comment threads', () => {
  it('collect replies, resolve and reopen, and list by path and status in pages', async () => {
    // Each comment a millisecond after the last: listings are newest first.
    let now = Date.parse('2026-01-01T00:00:00Z');
    const { satchel } = await openTemp({ clock: () => now++ });
    await satchel.writeFile('ws', '/a.md', `${TEN}\n`);
    await satchel.writeFile('ws', '/b.md', `${TEN}\n`);
    const first = await satchel.addComment('ws', {
      path: '/a.md',
      startLine: 1,
      endLine: 1,
      body: 'one',
    });
    const reply = await satchel.addComment('ws', { parentId: first.id, body: 'done in v2' });
    expect(reply).toMatchObject({ threadId: first.id, parentId: first.id, path: '/a.md' });
    // A reply to a reply joins the same thread.
    const nested = await satchel.addComment('ws', { parentId: reply.id, body: 'thanks' });
    expect(nested.threadId).toBe(first.id);
    await satchel.addComment('ws', { path: '/b.md', startLine: 2, endLine: 3, body: 'two' });
    await satchel.addComment('ws', { path: '/a.md', startLine: 4, endLine: 4, body: 'three' });

    const thread = await satchel.getComment('ws', reply.id);
    expect(thread.id).toBe(first.id);
    expect(thread.replies.map((r) => r.body)).toEqual(['done in v2', 'thanks']);
    expect(thread.replyCount).toBe(2);

    const resolved = await satchel.resolveComment('ws', first.id);
    expect(resolved).toMatchObject({ resolved: true, resolvedBy: 'admin' });

    const open = await satchel.listComments('ws', { status: 'open' });
    expect(open.items.map((t) => t.body)).toEqual(['three', 'two']);
    const onA = await satchel.listComments('ws', { path: '/a.md' });
    expect(onA.items.map((t) => t.body)).toEqual(['three', 'one']);
    const done = await satchel.listComments('ws', { status: 'resolved' });
    expect(done.items.map((t) => t.id)).toEqual([first.id]);

    const page1 = await satchel.listComments('ws', { limit: 2 });
    const page2 = await satchel.listComments('ws', { limit: 2, cursor: page1.nextCursor ?? '' });
    expect([...page1.items, ...page2.items].map((t) => t.body)).toEqual(['three', 'two', 'one']);
    expect(page2.nextCursor).toBeNull();

    expect(await satchel.resolveComment('ws', first.id, { resolved: false })).toMatchObject({
      resolved: false,
      resolvedBy: null,
    });
    await expect(satchel.getComment('ws', 'cm_missing')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      satchel.addComment('ws', { parentId: first.id, path: '/a.md', body: 'x' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('who may comment', () => {
  it('viewers read, comment and resolve their own threads; editors resolve any; read-only keys and strangers may not', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.md', `${TEN}\n`);
    const viewer = await as(satchel, 'manager', 'viewer');
    const other = await as(satchel, 'client', 'viewer');
    const editor = await as(satchel, 'agent', 'editor');
    const readOnly = await as(satchel, 'auditor', 'owner', true);
    const stranger = await as(satchel, 'stranger', null);

    const mine = await viewer.addComment('ws', {
      path: '/a.md',
      startLine: 3,
      endLine: 5,
      body: 'fix',
    });
    expect(mine.author).toBe('manager');
    expect((await readOnly.listComments('ws')).items).toHaveLength(1);
    await expect(
      readOnly.addComment('ws', { path: '/a.md', startLine: 1, endLine: 1, body: 'x' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', data: { reason: 'read_only' } });
    await expect(stranger.listComments('ws')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(other.resolveComment('ws', mine.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(viewer.resolveComment('ws', mine.id)).resolves.toMatchObject({ resolved: true });
    await expect(editor.resolveComment('ws', mine.id, { resolved: false })).resolves.toMatchObject({
      resolved: false,
    });

    const audit = await satchel.listAudit({ workspace: 'ws', limit: 1000 });
    const actions = audit.items.map((e) => [e.action, e.actor, e.outcome]);
    expect(actions).toContainEqual(['addComment', 'manager', 'ok']);
    expect(actions).toContainEqual(['addComment', 'auditor', 'refused']);
    expect(actions).toContainEqual(['resolveComment', 'client', 'refused']);
    expect(actions).toContainEqual(['resolveComment', 'agent', 'ok']);
    expect(actions).toContainEqual(['listComments', 'auditor', 'ok']);
    expect(audit.items.find((e) => e.action === 'addComment' && e.outcome === 'ok')?.path).toBe(
      '/a.md',
    );
  });
});

describe('comment webhooks', () => {
  it('queue comment.created and comment.resolved for subscriptions that ask, matching the path', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/docs/a.md', `${TEN}\n`);
    const all = await satchel.createWebhook('ws', { url: 'http://93.184.215.14:8080/all' });
    const files = await satchel.createWebhook('ws', {
      url: 'http://93.184.215.14:8080/files',
      events: ['write'],
    });
    const elsewhere = await satchel.createWebhook('ws', {
      url: 'http://93.184.215.14:8080/other',
      events: ['comment.created'],
      path: '/other/**',
    });
    expect(all.events).toContain('comment.created');
    const c = await satchel.addComment('ws', {
      path: '/docs/a.md',
      startLine: 2,
      endLine: 2,
      body: 'why?',
    });
    await satchel.resolveComment('ws', c.id);
    await satchel.resolveComment('ws', c.id); // no second event

    const queued = (await satchel.listWebhookDeliveries('ws', all.id)).items;
    expect(queued.map((d) => d.eventType).sort()).toEqual(['comment.created', 'comment.resolved']);
    expect((await satchel.listWebhookDeliveries('ws', files.id)).items).toHaveLength(0);
    expect((await satchel.listWebhookDeliveries('ws', elsewhere.id)).items).toHaveLength(0);
  });
});
