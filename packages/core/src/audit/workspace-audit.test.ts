/**
 * A workspace's audit log belongs to that workspace, not to its name (issue 20, item 6): a
 * workspace re-created under a deleted one's name, or created under a name someone failed to
 * reach before, starts with none of those entries.
 */
import { describe, expect, it } from 'vitest';
import { openTemp } from '../test-support/temp.js';

async function world() {
  const { satchel: engine } = await openTemp();
  const as = async (name: string) => {
    await engine.createPrincipal({ name, kind: 'user' });
    const { key } = await engine.createKey({ principal: name });
    return engine.as(await engine.authenticate(key));
  };
  return { engine, alice: await as('alice'), bob: await as('bob') };
}

describe('audit by workspace id', () => {
  it("a re-created workspace's owner reads none of the deleted one's entries", async () => {
    const { alice, bob } = await world();
    await alice.createWorkspace('w');
    await alice.writeFile('w', '/secret-plan.md', 'plan', { session: 'alice-run-1' });
    await alice.readText('w', '/secret-plan.md', { session: 'alice-run-1' });
    await alice.deleteWorkspace('w');
    await bob.createWorkspace('w');
    await bob.writeFile('w', '/mine.md', 'mine');

    const { items } = await bob.listAudit({ workspace: 'w', limit: 1000 });
    expect(items.map((e) => e.actor)).not.toContain('alice');
    expect(items.map((e) => e.path)).not.toContain('/secret-plan.md');
    expect(items.map((e) => e.session)).not.toContain('alice-run-1');
    expect(items.map((e) => e.action)).toEqual(
      expect.arrayContaining(['createWorkspace', 'writeFile']),
    );
    expect(items.every((e) => e.workspace === 'w')).toBe(true);
  });

  it('a failed call against a name nobody has yet is not in the audit of whoever creates it', async () => {
    const { engine, alice, bob } = await world();
    await expect(alice.readText('x', '/probe.md', { session: 'probe' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await bob.createWorkspace('x');
    const { items } = await bob.listAudit({ workspace: 'x', limit: 1000 });
    expect(items.map((e) => e.actor)).not.toContain('alice');
    expect(items.map((e) => e.path)).not.toContain('/probe.md');
    // The refusal is kept: in the server-level log, which only admins read.
    const server = await engine.listAudit({ server: true, limit: 1000 });
    expect(server.items).toContainEqual(
      expect.objectContaining({ actor: 'alice', path: '/probe.md', workspace: 'x' }),
    );
    await expect(bob.listAudit({ server: true })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('the whole log still verifies with entries of deleted and re-created workspaces', async () => {
    const { engine, alice, bob } = await world();
    await alice.createWorkspace('w');
    await alice.writeFile('w', '/a.md', 'a');
    await alice.deleteWorkspace('w');
    await bob.createWorkspace('w');
    await expect(engine.verifyAudit()).resolves.toMatchObject({ ok: true });
  });
});
