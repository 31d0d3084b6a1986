/**
 * What owners do over MCP: hand a workspace over, read its audit log, remove members, delete it;
 * the prompts that script those jobs; and the session label a client's calls are audited under.
 */
import type { SatchelEngine } from '@satchel/core';
import { describe, expect, it } from 'vitest';
import { call, connect, errorOf, ok, openEngine, textOf } from './test-support/client.js';

async function principal(engine: SatchelEngine, name: string, kind: 'agent' | 'user' = 'agent') {
  await engine.createPrincipal({ name, kind });
  const key = (await engine.createKey({ principal: name })).key;
  return engine.as(await engine.authenticate(key));
}

describe('owner tools', () => {
  it('an agent offers its workspace to a person, who accepts by the claim code', async () => {
    const engine = await openEngine();
    const builder = await connect(await principal(engine, 'builder'));
    await ok(builder, 'create_workspace', { name: 'report' });
    const human = await connect(await principal(engine, 'ann', 'user'));
    const offer = await call(builder, 'offer_transfer', { workspace: 'report', to: 'ann' });
    const { code } = offer.structuredContent as { code: string };
    expect(textOf(offer)).toContain(code);
    const accepted = await ok(human, 'accept_transfer', { code });
    expect(accepted).toMatchObject({ workspace: 'report', status: 'accepted' });
    const members = await engine.listMembers('report');
    expect(members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ principal: 'ann', role: 'owner' }),
        expect.objectContaining({ principal: 'builder', role: 'editor' }),
      ]),
    );
    // Used once: the code is spent.
    expect((await call(human, 'accept_transfer', { code })).isError).toBe(true);
  });

  it('list_audit pages the log for owners, under the client name and connection as session', async () => {
    const engine = await openEngine();
    const first = await connect(engine);
    const second = await connect(engine);
    for (const i of [1, 2, 3]) await ok(first, 'write_file', { path: `/f${i}.md`, content: 'x' });
    await ok(second, 'write_file', { path: '/g.md', content: 'y' });
    const page = await ok<{ items: { session: string; action: string }[]; nextCursor: string }>(
      first,
      'list_audit',
      { limit: 2 },
    );
    expect(page.items).toHaveLength(2);
    expect(page.nextCursor).not.toBeNull();
    const all = await ok<{ items: { session: string | null; action: string; path: string }[] }>(
      first,
      'list_audit',
      { limit: 200 },
    );
    const writes = all.items.filter((e) => e.action === 'writeFile');
    const sessions = new Set(writes.map((e) => e.session));
    expect(sessions.size).toBe(2);
    for (const session of sessions) expect(session).toMatch(/^test#[0-9a-f]{8}$/);
    const viewer = await principal(engine, 'viv');
    await engine.setMember('ws', 'viv', 'viewer');
    const refused = await call(await connect(viewer), 'list_audit', { workspace: 'ws' });
    expect(errorOf(refused)).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('remove_member and delete_workspace are destructive, and delete needs the name', async () => {
    const engine = await openEngine();
    const owner = await connect(engine);
    await principal(engine, 'helper');
    await engine.setMember('ws', 'helper', 'editor');
    await ok(owner, 'remove_member', { workspace: 'ws', principal: 'helper' });
    expect((await engine.listMembers('ws')).map((m) => m.principal)).not.toContain('helper');

    const tools = (await owner.listTools()).tools;
    const annotations = (name: string) => tools.find((t) => t.name === name)?.annotations;
    // Destructive is the MCP default: listed by leaving the hint out.
    expect(annotations('delete_workspace')).not.toHaveProperty('destructiveHint');
    expect(annotations('remove_member')).not.toHaveProperty('destructiveHint');
    expect(annotations('list_audit')).toMatchObject({ readOnlyHint: true });
    expect((await call(owner, 'delete_workspace', {})).isError).toBe(true);
    await ok(owner, 'delete_workspace', { workspace: 'ws' });
    await expect(engine.getWorkspace('ws')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('offers prompts that name the tools for a handover and a session review', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['hand_over_workspace', 'review_session']);
    const handover = await client.getPrompt({
      name: 'hand_over_workspace',
      arguments: { workspace: 'ws', to: 'ann' },
    });
    const text = JSON.stringify(handover.messages);
    expect(text).toContain('offer_transfer');
    expect(text).toContain('\\"ann\\"');
    const review = await client.getPrompt({
      name: 'review_session',
      arguments: { workspace: 'ws', session: 'test#0123abcd' },
    });
    expect(JSON.stringify(review.messages)).toContain('list_audit');
  });
});
