import { join } from 'node:path';
import type { Invitation, MembershipChange } from '@satchel/client/schemas/index.js';
import { describe, expect, it } from 'vitest';
import { openSatchel } from '../engine/open.js';
import type { SatchelEngine } from '../engine/satchel-engine.js';
import { tempDir } from '../test-support/temp.js';

const DAY = 24 * 3_600_000;

async function setup() {
  let now = Date.parse('2026-12-01T00:00:00Z');
  const engine = await openSatchel({ data: join(await tempDir(), 'data'), clock: () => now });
  const as = async (name: string, key: Parameters<SatchelEngine['createKey']>[0] = {}) => {
    if (!(await engine.listPrincipals()).items.some((p) => p.name === name)) {
      await engine.createPrincipal({ name, kind: 'user' });
    }
    const created = await engine.createKey({ ...key, principal: name });
    return engine.as(await engine.authenticate(created.key));
  };
  const mallory = await as('mallory');
  await mallory.createWorkspace('team-reports');
  return { engine, as, mallory, advance: (ms: number) => (now += ms) };
}

function invitation(change: MembershipChange): Invitation & { status: 'invited' } {
  if (change.status !== 'invited') throw new Error(`expected an invitation, got ${change.status}`);
  return change;
}

/** What an answer says once the parts that name the invitee or are random are set aside. */
function shape(change: MembershipChange) {
  const { id, principal, ...rest } = invitation(change);
  return { id: typeof id, principal: typeof principal, ...rest };
}

describe('membership by invitation', () => {
  it("an owner's add is an invitation: the victim's create-then-write never lands in the attacker's workspace", async () => {
    const { mallory, as, engine } = await setup();
    const victim = await as('victim');
    const change = await mallory.setMember('team-reports', 'victim', 'editor');
    expect(change).toMatchObject({
      status: 'invited',
      workspace: 'team-reports',
      principal: 'victim',
      role: 'editor',
      invitedBy: 'mallory',
      expiresAt: '2026-12-08T00:00:00.000Z',
    });
    // "create, ignore 409, write": the write must not reach mallory's workspace.
    await expect(victim.createWorkspace('team-reports')).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(
      victim.writeFile('team-reports', '/secrets.txt', 'quarterly numbers'),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await mallory.listMembers('team-reports')).toEqual([
      expect.objectContaining({ principal: 'mallory', role: 'owner' }),
    ]);
    expect((await victim.listWorkspaces()).items).toEqual([]);
    const { status: _status, ...pending } = invitation(change);
    expect(await victim.listInvitations()).toEqual([pending]);
    await engine.close();
  });

  it('the invitee accepts and becomes a member with the invited role; the invitation is used up', async () => {
    const { mallory: owner, as, engine } = await setup();
    const ed = await as('ed');
    const { id } = invitation(await owner.setMember('team-reports', 'ed', 'editor'));
    expect(await owner.listWorkspaceInvitations('team-reports')).toMatchObject([
      { id, principal: 'ed', role: 'editor', invitedBy: 'mallory' },
    ]);
    expect(await ed.acceptInvitation(id)).toMatchObject({
      workspace: 'team-reports',
      principal: 'ed',
      kind: 'user',
      role: 'editor',
    });
    await ed.writeFile('team-reports', '/hello.txt', 'hi');
    expect(await owner.listMembers('team-reports')).toMatchObject([
      { principal: 'ed', role: 'editor' },
      { principal: 'mallory', role: 'owner' },
    ]);
    expect(await ed.listInvitations()).toEqual([]);
    expect(await owner.listWorkspaceInvitations('team-reports')).toEqual([]);
    await expect(ed.acceptInvitation(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // A member's role changes directly: it joined already.
    expect(await owner.setMember('team-reports', 'ed', 'viewer')).toMatchObject({
      status: 'member',
      role: 'viewer',
    });
    await engine.close();
  });

  it('declining removes the invitation and grants nothing', async () => {
    const { mallory: owner, as, engine } = await setup();
    const vi = await as('vi');
    const { id } = invitation(await owner.setMember('team-reports', 'vi', 'viewer'));
    await vi.declineInvitation(id);
    expect(await vi.listInvitations()).toEqual([]);
    await expect(vi.acceptInvitation(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(vi.getWorkspace('team-reports')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await engine.close();
  });

  it('inviting answers the same whether or not the principal exists, and removing too', async () => {
    const { mallory, as, engine } = await setup();
    await as('alice');
    const real = await mallory.setMember('team-reports', 'alice', 'editor');
    const ghost = await mallory.setMember('team-reports', 'nobody-here', 'editor');
    expect(shape(ghost)).toEqual(shape(real));
    expect(Object.keys(ghost).sort()).toEqual(Object.keys(real).sort());

    // Removing someone who is neither member nor invited: one answer for both.
    await as('bob');
    const refusal = async (name: string) => {
      const error = await mallory.removeMember('team-reports', name).catch((e: unknown) => e);
      const { code, message, data } = error as { code: string; message: string; data: object };
      return { code, message: message.replace(name, 'NAME'), data: { ...data, principal: '' } };
    };
    expect(await refusal('never-was')).toEqual(await refusal('bob'));
    expect((await refusal('bob')).code).toBe('NOT_FOUND');

    // Removing withdraws an invitation, known principal or not.
    await mallory.removeMember('team-reports', 'nobody-here');
    await mallory.removeMember('team-reports', 'alice');
    expect(await mallory.listWorkspaceInvitations('team-reports')).toEqual([]);
    await engine.close();
  });

  it('an invitation to a name that was nobody’s can never be accepted, even once the name exists', async () => {
    const { mallory, as, engine } = await setup();
    const { id } = invitation(await mallory.setMember('team-reports', 'later', 'editor'));
    const later = await as('later');
    expect(await later.listInvitations()).toEqual([]);
    await expect(later.acceptInvitation(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await engine.close();
  });

  it('only the invitee may accept, only before it expires, and only with a key that may join', async () => {
    const { mallory, as, advance, engine } = await setup();
    const ed = await as('ed');
    const eve = await as('eve');
    const { id } = invitation(await mallory.setMember('team-reports', 'ed', 'editor'));
    const notFound = { code: 'NOT_FOUND', message: `invitation ${id} not found` };
    await expect(eve.acceptInvitation(id)).rejects.toMatchObject(notFound);
    await expect(eve.declineInvitation(id)).rejects.toMatchObject(notFound);
    await expect(mallory.acceptInvitation(id)).rejects.toMatchObject(notFound);

    const readOnly = await as('ed', { readOnly: true });
    await expect(readOnly.acceptInvitation(id)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'read_only' },
    });
    const elsewhere = await as('ed', { workspaces: ['other'] });
    expect(await elsewhere.listInvitations()).toEqual([]);
    await expect(elsewhere.acceptInvitation(id)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'key_scope' },
    });

    advance(7 * DAY);
    expect(await ed.listInvitations()).toEqual([]);
    await expect(ed.acceptInvitation(id)).rejects.toMatchObject(notFound);
    await expect(ed.getWorkspace('team-reports')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await engine.close();
  });

  it('admins add directly; a later invitation never lowers a member', async () => {
    const { mallory, as, engine } = await setup();
    const ed = await as('ed');
    const { id } = invitation(await mallory.setMember('team-reports', 'ed', 'viewer'));
    expect(await engine.setMember('team-reports', 'ed', 'owner')).toMatchObject({
      status: 'member',
      principal: 'ed',
      kind: 'user',
      role: 'owner',
    });
    // The direct add superseded the invitation.
    expect(await ed.listInvitations()).toEqual([]);
    await expect(ed.acceptInvitation(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(engine.setMember('team-reports', 'ghost', 'viewer')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await engine.close();
  });

  it('audits invitations, acceptances and refusals in the workspace', async () => {
    const { mallory, as, engine } = await setup();
    const ed = await as('ed');
    const eve = await as('eve');
    const { id } = invitation(await mallory.setMember('team-reports', 'ed', 'editor'));
    await eve.acceptInvitation(id).catch(() => undefined);
    await ed.acceptInvitation(id);
    const entries = (await engine.listAudit({ workspace: 'team-reports' })).items;
    // Refusals are group-committed, so they may land after a later success.
    const seen = entries
      .filter((e) => e.action !== 'createWorkspace')
      .map((e) => [e.actor, e.action, e.outcome]);
    expect(seen).toHaveLength(3);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['mallory', 'setMember', 'ok'],
        ['eve', 'acceptInvitation', 'error'],
        ['ed', 'acceptInvitation', 'ok'],
      ]),
    );
    await engine.close();
  });
});
