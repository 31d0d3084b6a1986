/**
 * The second half of the Satchel contract (satchel.contract.ts): locks, principals,
 * keys, members, transfers, the audit log, the change feed, and refusals by role and key.
 */
import { expect, it } from 'vitest';
import type { World } from './satchel.contract.js';

export function accessBehaviour(w: () => World): void {
  it('locks: others get LOCKED naming the holder; the token fences writes', async () => {
    const { admin, editor, viewer } = w();
    const ws = await w().workspace('locks');
    await admin.writeFile(ws, '/doc.md', 'v1');
    const lock = await editor.acquireLock(ws, { path: '/doc.md', ttlSeconds: 30 });
    expect(lock).toMatchObject({
      workspace: ws,
      path: '/doc.md',
      holder: 'ed',
      mode: 'exclusive',
      scope: 'file',
    });
    await expect(admin.writeFile(ws, '/doc.md', 'v2')).rejects.toMatchObject({
      code: 'LOCKED',
      data: { path: '/doc.md', holder: 'ed', lockId: lock.id, reason: 'held' },
    });
    await expect(admin.acquireLock(ws, { path: '/doc.md' })).rejects.toMatchObject({
      code: 'LOCKED',
      data: { holder: 'ed' },
    });
    expect(await editor.writeFile(ws, '/doc.md', 'v2', { lockToken: lock.token })).toMatchObject({
      size: 2,
    });
    expect(await admin.listLocks(ws)).toEqual([lock]);
    expect(await viewer.listLocks(ws, { path: '/doc.md' })).toHaveLength(1);
    const renewed = await editor.renewLock(ws, lock.id, { ttlSeconds: 600 });
    expect(Date.parse(renewed.expiresAt)).toBeGreaterThan(Date.parse(lock.expiresAt));

    const waiting = admin.acquireLock(ws, { path: '/doc.md', waitSeconds: 10 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await editor.releaseLock(ws, lock.id);
    const mine = await waiting;
    expect(mine.holder).toBe('admin');
    await expect(
      editor.writeFile(ws, '/doc.md', 'v3', { lockToken: lock.token }),
    ).rejects.toMatchObject({ code: 'LOCKED', data: { reason: 'stale_token' } });
    await expect(editor.releaseLock(ws, mine.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(viewer.breakLock(ws, mine.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await admin.releaseLock(ws, mine.id);

    const held = await editor.acquireLock(ws, { path: '/dir', scope: 'tree', mode: 'exclusive' });
    expect(await admin.breakLock(ws, held.id)).toMatchObject({ id: held.id, holder: 'ed' });
    expect(await admin.listLocks(ws)).toEqual([]);
    await expect(admin.renewLock(ws, 'no-such-lock')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('manages members, principals, keys and who am I', async () => {
    const { admin, editor, fixture } = w();
    const ws = await w().workspace('people');
    expect(await admin.whoami()).toMatchObject({
      principal: 'admin',
      kind: 'user',
      admin: true,
      key: { principal: 'admin' },
    });
    expect(await editor.whoami()).toMatchObject({ principal: 'ed', admin: false });

    expect(await admin.createPrincipal({ name: 'pat', kind: 'user' })).toMatchObject({
      name: 'pat',
      kind: 'user',
      admin: false,
    });
    await expect(admin.createPrincipal({ name: 'pat' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(editor.createPrincipal({ name: 'eve' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'not_admin' },
    });
    const principals = await admin.listPrincipals({ limit: 2 });
    expect(principals.items).toHaveLength(2);
    expect(principals.nextCursor).not.toBeNull();

    expect(await admin.setMember(ws, 'pat', 'editor')).toMatchObject({
      principal: 'pat',
      role: 'editor',
    });
    const members = await admin.listMembers(ws);
    expect(members.map((m) => [m.principal, m.role]).sort()).toEqual([
      ['admin', 'owner'],
      ['ed', 'editor'],
      ['pat', 'editor'],
      ['vi', 'viewer'],
    ]);
    await admin.removeMember(ws, 'pat');
    expect((await admin.listMembers(ws)).map((m) => m.principal)).not.toContain('pat');
    await expect(editor.setMember(ws, 'pat', 'owner')).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });

    const created = await admin.createKey({ principal: 'ed', label: 'ro', readOnly: true });
    expect(created.info).toMatchObject({ principal: 'ed', label: 'ro', readOnly: true });
    const readOnly = await fixture.connect(created.key);
    await expect(readOnly.writeFile(ws, '/x', 'x')).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'read_only' },
    });
    expect((await admin.listKeys({ all: true })).map((k) => k.id)).toContain(created.info.id);
    expect((await editor.listKeys()).every((k) => k.principal === 'ed')).toBe(true);
    expect(await admin.revokeKey(created.info.id)).toMatchObject({ id: created.info.id });
    await expect(fixture.connect(created.key).then((s) => s.whoami())).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    await expect(admin.revokeKey('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('offers, lists, cancels and accepts ownership transfers', async () => {
    const { admin, editor } = w();
    const ws = await w().workspace('handover');
    const cancelled = await admin.offerTransfer(ws, { to: 'ed' });
    expect(cancelled).toMatchObject({
      workspace: ws,
      offeredBy: 'admin',
      to: 'ed',
      status: 'open',
    });
    expect(cancelled.code.length).toBeGreaterThan(10);
    expect((await admin.listTransfers(ws)).map((t) => t.id)).toEqual([cancelled.id]);
    expect(await admin.cancelTransfer(ws, cancelled.id)).toMatchObject({ status: 'cancelled' });
    await expect(editor.acceptTransfer(cancelled.code)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'this claim code is cancelled',
    });

    const offer = await admin.offerTransfer(ws, { to: 'ed', previousOwner: 'editor' });
    await expect(w().viewer.acceptTransfer(offer.code)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(await editor.acceptTransfer(offer.code)).toMatchObject({ status: 'accepted' });
    const roles = Object.fromEntries(
      (await editor.listMembers(ws)).map((m) => [m.principal, m.role]),
    );
    expect(roles).toMatchObject({ ed: 'owner', admin: 'editor' });
    await expect(editor.acceptTransfer('not-a-code')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('lists, verifies and exports the audit log', async () => {
    const { admin, editor, viewer } = w();
    const ws = await w().workspace('audited');
    await admin.writeFile(ws, '/a.txt', 'a');
    await viewer.writeFile(ws, '/b.txt', 'b').catch(() => undefined);

    const entries = await admin.listAudit({ workspace: ws, limit: 1000 });
    expect(entries.items.map((e) => [e.action, e.actor, e.outcome])).toEqual(
      expect.arrayContaining([
        ['writeFile', 'admin', 'ok'],
        ['writeFile', 'vi', 'refused'],
      ]),
    );
    const first = await admin.listAudit({ workspace: ws, limit: 1 });
    expect(first.items).toHaveLength(1);
    expect(first.nextCursor).not.toBeNull();
    const second = await admin.listAudit({
      workspace: ws,
      limit: 1,
      cursor: first.nextCursor ?? undefined,
    });
    expect(second.items[0]?.idx).toBeGreaterThan(first.items[0]?.idx ?? Number.POSITIVE_INFINITY);

    expect(await admin.verifyAudit()).toMatchObject({ ok: true, index: null, reason: null });
    await expect(editor.verifyAudit()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(editor.listAudit({ workspace: ws })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });

    const all = await admin.listAudit({ limit: 1000 });
    const lines: string[] = [];
    for await (const line of admin.exportAudit()) lines.push(line);
    expect(lines.length).toBeGreaterThanOrEqual(all.items.length);
    expect(lines.every((line) => line.endsWith('\n'))).toBe(true);
    const exported = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const byIdx = new Map(exported.map((e) => [e.idx, e]));
    for (const entry of all.items) {
      expect(byIdx.get(entry.idx)).toMatchObject({
        hash: entry.hash,
        prevHash: entry.prevHash,
        time: Date.parse(entry.time),
      });
    }
    const exportedByEditor = (async () => {
      for await (const _ of editor.exportAudit()) return;
    })();
    await expect(exportedByEditor).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('pages through changes and long-polls for the next one', async () => {
    const { admin, editor } = w();
    const ws = await w().workspace('feed');
    await admin.writeFile(ws, '/1.txt', '1');
    await admin.writeFile(ws, '/2.txt', '2');
    await admin.move(ws, '/2.txt', '/3.txt');
    const all = await editor.listChanges(ws);
    expect(all.events.map((e) => [e.type, e.path])).toEqual([
      ['write', '/1.txt'],
      ['write', '/2.txt'],
      ['move', '/2.txt'],
      ['move', '/3.txt'],
    ]);
    expect(all.cursor).toBe(3);
    const page = await editor.listChanges(ws, { after: 0, limit: 1 });
    expect(page).toMatchObject({ cursor: 1, events: [{ seq: 1, path: '/1.txt', actor: 'admin' }] });
    expect(await editor.listChanges(ws, { after: 1, path: '/3.txt' })).toMatchObject({
      events: [{ path: '/3.txt' }],
    });

    const started = Date.now();
    const idle = await editor.listChanges(ws, { after: all.cursor, waitSeconds: 0.3 });
    expect(idle).toEqual({ events: [], cursor: all.cursor });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);

    const polling = editor.listChanges(ws, { after: all.cursor, waitSeconds: 20 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await admin.writeFile(ws, '/4.txt', '4', { session: 'poller' });
    const next = await polling;
    expect(next.events).toMatchObject([{ seq: 4, path: '/4.txt', session: 'poller' }]);
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect(editor.listChanges(ws, { waitSeconds: 600 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('refuses viewers, strangers, and keys that are not valid', async () => {
    const { admin, viewer, stranger, fixture } = w();
    const ws = await w().workspace('guarded');
    await admin.writeFile(ws, '/r.txt', 'read me');
    expect((await viewer.readText(ws, '/r.txt')).text).toBe('read me');
    await expect(viewer.writeFile(ws, '/r.txt', 'no')).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'role' },
    });
    await expect(viewer.remove(ws, '/r.txt')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(viewer.mkdir(ws, '/d')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(viewer.acquireLock(ws, { path: '/r.txt' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(viewer.deleteWorkspace(ws)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(viewer.offerTransfer(ws)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(stranger.getWorkspace(ws)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(stranger.readFile(ws, '/r.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await stranger.listWorkspaces()).items.map((x) => x.name)).not.toContain(ws);

    const bad = (key: string) => fixture.connect(key).then((s) => s.whoami());
    await expect(bad('satchel_not-a-real-key')).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    await expect(bad('garbage')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
}
