/** Members over MCP: an owner's set_member invites; the invited agent accepts or declines. */
import type { SatchelEngine } from '@satchel/core';
import { describe, expect, it } from 'vitest';
import { call, connect, errorOf, ok, openEngine } from './test-support/client.js';

async function agent(engine: SatchelEngine, name: string) {
  await engine.createPrincipal({ name, kind: 'agent' });
  const key = (await engine.createKey({ principal: name })).key;
  return connect(engine.as(await engine.authenticate(key)));
}

describe('member tools', () => {
  it("set_member by an owner invites; the agent's writes reach the workspace only after it accepts", async () => {
    const engine = await openEngine();
    const owner = await agent(engine, 'builder');
    await ok(owner, 'create_workspace', { name: 'team' });
    const victim = await agent(engine, 'helper');

    const invited = await ok(owner, 'set_member', {
      workspace: 'team',
      principal: 'helper',
      role: 'editor',
    });
    expect(invited).toMatchObject({ status: 'invited', principal: 'helper', role: 'editor' });
    const refused = await call(victim, 'write_file', {
      workspace: 'team',
      path: '/x.md',
      content: 'mine',
    });
    expect(errorOf(refused)).toMatchObject({ code: 'NOT_FOUND' });

    const { invitations } = await ok<{ invitations: { id: string; workspace: string }[] }>(
      victim,
      'list_invitations',
    );
    expect(invitations).toMatchObject([
      { id: invited.invitationId, workspace: 'team', invitedBy: 'builder' },
    ]);
    expect(await ok(victim, 'accept_invitation', { id: invited.invitationId })).toMatchObject({
      workspace: 'team',
      principal: 'helper',
      role: 'editor',
    });
    await ok(victim, 'write_file', { workspace: 'team', path: '/x.md', content: 'mine' });
    const { members } = await ok<{ members: { principal: string }[] }>(owner, 'list_members', {
      workspace: 'team',
    });
    expect(members.map((m) => m.principal)).toEqual(['builder', 'helper']);
  });

  it('answers the same for a name nobody has; a declined invitation is gone', async () => {
    const engine = await openEngine();
    const owner = await agent(engine, 'builder');
    await ok(owner, 'create_workspace', { name: 'team' });
    const helper = await agent(engine, 'helper');
    const real = await ok(owner, 'set_member', {
      workspace: 'team',
      principal: 'helper',
      role: 'viewer',
    });
    const ghost = await ok(owner, 'set_member', {
      workspace: 'team',
      principal: 'ghost',
      role: 'viewer',
    });
    const strip = ({ principal, invitationId, expiresAt, ...rest }: Record<string, unknown>) => ({
      ...rest,
      principal: typeof principal,
      invitationId: typeof invitationId,
      expiresAt: typeof expiresAt,
    });
    expect(strip(ghost)).toEqual(strip(real));

    await ok(helper, 'decline_invitation', { id: real.invitationId });
    expect(await ok(helper, 'list_invitations')).toEqual({ invitations: [] });
    const again = await call(helper, 'accept_invitation', { id: real.invitationId });
    expect(errorOf(again)).toMatchObject({ code: 'NOT_FOUND' });
  });
});
