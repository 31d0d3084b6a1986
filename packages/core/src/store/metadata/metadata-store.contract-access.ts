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

  it('takes a login link once, forgets expired links and sessions, and revokes a session once', async () => {
    await store().transaction(async (tx) => {
      await tx.access.insertPrincipal({
        id: 'p-a',
        name: 'a',
        kind: 'user',
        admin: false,
        createdAt: now,
      });
      for (const [hash, expiresAt] of [
        ['h-live', now + 1000],
        ['h-old', now],
      ] as const) {
        await tx.webSessions.insertLink({
          tokenHash: hash,
          principalId: 'p-a',
          createdBy: 'p-a',
          createdAt: now,
          expiresAt,
        });
      }
    });
    // Expired: used up without signing in.
    expect(
      await store().transaction((tx) => tx.webSessions.takeLink('h-old', now)),
    ).toBeUndefined();
    const taken = await Promise.all(
      [1, 2].map(() => store().transaction((tx) => tx.webSessions.takeLink('h-live', now))),
    );
    expect(taken.filter((link) => link !== undefined).map((link) => link?.principalId)).toEqual([
      'p-a',
    ]);
    const session = (id: string, expiresAt: number) => ({
      id,
      secretHash: `hash-${id}`,
      principalId: 'p-a',
      userAgent: null,
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
      revokedAt: null,
    });
    await store().transaction(async (tx) => {
      await tx.webSessions.insertSession(session('s-1', now + 5000));
      await tx.webSessions.insertSession(session('s-2', now + 10));
      await tx.webSessions.revokeSession('s-1', now + 1);
      await tx.webSessions.revokeSession('s-1', now + 2);
      await tx.webSessions.touchSession('s-2', now + 3);
    });
    expect(await store().webSessions.sessionById('s-1')).toMatchObject({ revokedAt: now + 1 });
    expect((await store().webSessions.liveSessions('p-a', now + 5)).map((s) => s.id)).toEqual([
      's-2',
    ]);
    expect(await store().webSessions.sessionById('s-2')).toMatchObject({ lastSeenAt: now + 3 });
    await store().transaction((tx) => tx.webSessions.deleteExpired(now + 10));
    expect(await store().webSessions.sessionById('s-2')).toBeUndefined();
    expect(await store().webSessions.sessionById('s-1')).toBeDefined();
  });
}
