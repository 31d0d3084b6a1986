/** Workspaces, principals, keys, members, transfers and the audit log over HTTP. */
import type { CreatedKey, TransferOffer } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, problemOf } from '../test-support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

describe('workspaces', () => {
  it('creates, lists (only visible ones), inspects and deletes workspaces', async () => {
    const created = await h.request('POST', '/v1/workspaces', { body: { name: 'proj' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('Location')).toBe('/v1/workspaces/proj');
    expect((await h.request('POST', '/v1/workspaces', { body: { name: 'proj' } })).status).toBe(
      409,
    );
    const bad = await h.request('POST', '/v1/workspaces', { body: { name: 'Bad Name' } });
    expect(await problemOf(bad)).toMatchObject({ status: 400, code: 'INVALID_INPUT' });

    const all = await (await h.request('GET', '/v1/workspaces?limit=1')).json();
    expect(all).toMatchObject({ items: [{ name: 'demo' }], nextCursor: expect.any(String) });
    const mine = await (await h.request('GET', '/v1/workspaces', { key: h.keys.stranger })).json();
    expect(mine).toEqual({ items: [], nextCursor: null });

    const info = await h.request('GET', '/v1/workspaces/proj');
    expect(await info.json()).toMatchObject({ name: 'proj', files: 0 });
    expect(info.headers.get('ETag')).toBe('"0"');
    expect((await h.request('DELETE', '/v1/workspaces/demo', { key: h.keys.editor })).status).toBe(
      403,
    );
    expect((await h.request('DELETE', '/v1/workspaces/proj')).status).toBe(204);
    expect((await h.request('GET', '/v1/workspaces/proj')).status).toBe(404);
  });
});

describe('principals and keys', () => {
  it('creates principals (admins only) and narrowed keys shown once', async () => {
    const principal = await h.request('POST', '/v1/principals', { body: { name: 'bot' } });
    expect(await principal.json()).toMatchObject({ name: 'bot', kind: 'agent' });
    const denied = await h.request('POST', '/v1/principals', {
      key: h.keys.editor,
      body: { name: 'bot2' },
    });
    expect(denied.status).toBe(403);
    expect(await (await h.request('GET', '/v1/principals?limit=2')).json()).toMatchObject({
      items: [{}, {}],
    });

    const res = await h.request('POST', '/v1/keys', {
      body: { principal: 'bot', workspaces: ['demo'], readOnly: true },
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as CreatedKey;
    const whoami = await h.request('GET', '/v1/whoami', { key: created.key });
    expect(await whoami.json()).toMatchObject({ principal: 'bot', key: { readOnly: true } });

    const listed = (await (await h.request('GET', '/v1/keys?all=true')).json()) as {
      items: { id: string }[];
    };
    expect(listed.items.map((k) => k.id)).toContain(created.info.id);
    const revoked = await h.request('DELETE', `/v1/keys/${created.info.id}`);
    expect(await revoked.json()).toMatchObject({ revokedAt: expect.any(String) });
    expect((await h.request('GET', '/v1/whoami', { key: created.key })).status).toBe(401);
  });

  it('lets anyone derive a key for itself, never wider than its own', async () => {
    const own = await h.request('POST', '/v1/keys', { key: h.keys.viewer });
    expect(own.status).toBe(201);
    const wider = await h.request('POST', '/v1/keys', {
      key: h.keys.viewer,
      body: { principal: 'ed' },
    });
    expect(wider.status).toBe(403);
  });

  it('refuses with 401 a key minted from a key that was then revoked', async () => {
    const parentRes = await h.request('POST', '/v1/keys', { key: h.keys.editor });
    const parent = (await parentRes.json()) as CreatedKey;
    const childRes = await h.request('POST', '/v1/keys', { key: parent.key, body: {} });
    const child = (await childRes.json()) as CreatedKey;
    const put = (key: string, name: string) =>
      h.request('PUT', `/v1/workspaces/demo/files/${name}`, { key, body: 'x' });
    expect((await put(child.key, 'before.txt')).status).toBe(200);
    expect((await h.request('DELETE', `/v1/keys/${parent.info.id}`)).status).toBe(200);
    const after = await put(child.key, 'after.txt');
    expect(after.status).toBe(401);
    expect(await problemOf(after)).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect((await put(h.keys.editor, 'editor.txt')).status).toBe(200);
  });
});

describe('members and transfers', () => {
  it('adds, lists and removes members (owners manage, viewers read)', async () => {
    await h.engine.createPrincipal({ name: 'newbie' });
    const set = await h.request('PUT', '/v1/workspaces/demo/members/newbie', {
      body: { role: 'editor' },
    });
    expect(await set.json()).toMatchObject({ principal: 'newbie', role: 'editor' });
    const byEditor = await h.request('PUT', '/v1/workspaces/demo/members/newbie', {
      key: h.keys.editor,
      body: { role: 'owner' },
    });
    expect(byEditor.status).toBe(403);
    const badRole = await h.request('PUT', '/v1/workspaces/demo/members/newbie', {
      body: { role: 'king' },
    });
    expect(await problemOf(badRole)).toMatchObject({ status: 400, field: 'role' });
    const list = await h.request('GET', '/v1/workspaces/demo/members', { key: h.keys.viewer });
    expect(((await list.json()) as { items: unknown[] }).items).toHaveLength(4);
    expect((await h.request('DELETE', '/v1/workspaces/demo/members/newbie')).status).toBe(204);
  });

  it('offers a workspace, accepts the code once, and cancels offers', async () => {
    const offer = await h.request('POST', '/v1/workspaces/demo/transfers', { body: { to: 'ed' } });
    expect(offer.status).toBe(201);
    const { code, id } = (await offer.json()) as TransferOffer;
    expect(
      (await (await h.request('GET', '/v1/workspaces/demo/transfers')).json()) as object,
    ).toMatchObject({ items: [{ id, status: 'open' }] });
    const stranger = await h.request('POST', '/v1/transfers/accept', {
      key: h.keys.stranger,
      body: { code },
    });
    expect(stranger.status).toBe(403);
    const accepted = await h.request('POST', '/v1/transfers/accept', {
      key: h.keys.editor,
      body: { code },
    });
    expect(await accepted.json()).toMatchObject({ status: 'accepted' });
    const again = await h.request('POST', '/v1/transfers/accept', {
      key: h.keys.editor,
      body: { code },
    });
    expect(again.status).toBe(404);

    const second = (await (
      await h.request('POST', '/v1/workspaces/demo/transfers', { key: h.keys.editor })
    ).json()) as TransferOffer;
    const cancelled = await h.request('DELETE', `/v1/workspaces/demo/transfers/${second.id}`, {
      key: h.keys.editor,
    });
    expect(await cancelled.json()).toMatchObject({ status: 'cancelled' });
  });
});

describe('audit export and fsck', () => {
  it('streams the engine’s JSONL export, byte for byte, to admins only', async () => {
    const res = await h.request('GET', '/v1/audit/export');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/x-ndjson/);
    const text = await res.text();
    let expected = '';
    for await (const line of h.engine.exportAudit()) expected += line;
    // The engine's export is read after the response: it may have grown by the request's entry.
    expect(expected.startsWith(text)).toBe(true);
    expect(text.split('\n').length).toBeGreaterThan(2);
    const denied = await h.request('GET', '/v1/audit/export', { key: h.keys.editor });
    expect(await problemOf(denied)).toMatchObject({ status: 403, reason: 'not_admin' });
  });

  it('runs fsck for admins only', async () => {
    const res = await h.request('POST', '/v1/fsck');
    expect(await res.json()).toMatchObject({ ok: true, corrupt: [], missing: [] });
    const denied = await h.request('POST', '/v1/fsck', { key: h.keys.viewer });
    expect(await problemOf(denied)).toMatchObject({ status: 403, reason: 'not_admin' });
  });
});

describe('audit', () => {
  it('pages a workspace’s entries after an index, for owners only, and verifies the chain', async () => {
    await h.request('PUT', '/v1/workspaces/demo/files/a.txt', { body: 'a' });
    const first = (await (await h.request('GET', '/v1/workspaces/demo/audit?limit=2')).json()) as {
      items: { idx: number; workspace: string }[];
      nextCursor: string;
    };
    expect(first.items).toHaveLength(2);
    expect(first.items.every((e) => e.workspace === 'demo')).toBe(true);
    const next = (await (
      await h.request('GET', `/v1/workspaces/demo/audit?after=${first.nextCursor}&limit=1000`)
    ).json()) as { items: { idx: number; action: string }[] };
    expect(next.items[0]?.idx).toBeGreaterThan(first.items[1]?.idx ?? 0);
    expect(next.items.map((e) => e.action)).toContain('writeFile');

    expect(
      (await h.request('GET', '/v1/workspaces/demo/audit', { key: h.keys.editor })).status,
    ).toBe(403);
    expect((await h.request('GET', '/v1/audit?limit=5')).status).toBe(200);
    expect((await h.request('GET', '/v1/audit', { key: h.keys.editor })).status).toBe(403);
    const verified = await h.request('GET', '/v1/audit/verify');
    expect(await verified.json()).toMatchObject({ ok: true, index: null });
    const bad = await h.request('GET', '/v1/workspaces/demo/audit?after=-1');
    expect(await problemOf(bad)).toMatchObject({ status: 400, field: 'after' });
  });
});
