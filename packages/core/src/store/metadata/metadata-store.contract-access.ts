/** The MetadataStore contract, continued: principals, keys and invitations (access areas). */
import { expect, it } from 'vitest';
import type { MetadataStore } from './metadata-store.js';

export interface AccessCaseContext {
  /** The store of the test under way (made fresh for each test). */
  readonly store: () => MetadataStore;
  readonly createWorkspace: (id: string) => Promise<void>;
  /** The fixed time the contract writes rows at. */
  readonly now: number;
}

/** Cases of the contract about principals, keys and invitations; call inside its describe. */
export function accessCases({ store, createWorkspace, now }: AccessCaseContext): void {
  it('reads a key, the keys it was minted from and its principal in one query', async () => {
    const key = (id: string, principalId: string, parentId: string | null) => ({
      id,
      principalId,
      parentId,
      secretHash: `hash-${id}`,
      label: null,
      workspaces: null,
      roleCeiling: null,
      pathPrefixes: null,
      readOnly: false,
      expiresAt: null,
      revokedAt: null,
      createdAt: now,
    });
    await store().transaction(async (tx) => {
      for (const [id, admin] of [
        ['p-root', true],
        ['p-bot', false],
      ] as const) {
        await tx.access.insertPrincipal({ id, name: id, kind: 'agent', admin, createdAt: now });
      }
      await tx.access.insertKey(key('k-root', 'p-root', null));
      await tx.access.insertKey(key('k-bot', 'p-bot', 'k-root'));
    });
    const { chain, principal } = await store().access.credentials('k-bot');
    expect(chain.map((k) => [k.id, k.depth])).toEqual([
      ['k-bot', 0],
      ['k-root', 1],
    ]);
    expect(chain).toEqual(await store().access.keyChain('k-bot'));
    expect(principal).toEqual({
      id: 'p-bot',
      name: 'p-bot',
      kind: 'agent',
      admin: false,
      createdAt: now,
    });
    expect((await store().access.credentials('k-root')).principal?.admin).toBe(true);
    expect(await store().access.credentials('nope')).toEqual({ chain: [], principal: undefined });
  });

  it('keeps one invitation per invited name, lists the unexpired ones, and forgets them with the workspace', async () => {
    await createWorkspace('w1');
    await store().transaction(async (tx) => {
      for (const name of ['owner', 'ed']) {
        await tx.access.insertPrincipal({
          id: `p-${name}`,
          name,
          kind: 'user',
          admin: false,
          createdAt: now,
        });
      }
      const invite = (id: string, name: string, principalId: string | null, expiresAt: number) =>
        tx.invitations.put({
          id,
          workspaceId: 'w1',
          principalName: name,
          principalId,
          role: 'editor',
          invitedBy: 'p-owner',
          createdAt: now,
          expiresAt,
        });
      await invite('i1', 'ed', 'p-ed', now + 1000);
      await invite('i2', 'ed', 'p-ed', now + 2000); // replaces i1
      await invite('i3', 'ghost', null, now + 1000);
    });
    expect(await store().invitations.byId('i1')).toBeUndefined();
    expect(await store().invitations.byId('i2')).toMatchObject({
      workspaceName: 'w1',
      inviterName: 'owner',
      principalName: 'ed',
      expiresAt: now + 2000,
    });
    expect((await store().invitations.pendingForPrincipal('p-ed', now)).map((i) => i.id)).toEqual([
      'i2',
    ]);
    expect(await store().invitations.pendingForPrincipal('p-ed', now + 2000)).toEqual([]);
    expect(
      (await store().invitations.pendingInWorkspace('w1', now + 1500)).map((i) => i.id),
    ).toEqual(['i2']);
    await store().transaction(async (tx) => {
      await tx.invitations.deleteExpired('w1', now + 1500);
      expect(await tx.invitations.deleteFor('w1', 'ghost')).toBe(false);
      await tx.deleteWorkspace('w1');
    });
    expect(await store().invitations.byId('i2')).toBeUndefined();
  });
}
