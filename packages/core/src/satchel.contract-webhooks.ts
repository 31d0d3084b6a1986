/**
 * The webhook part of the Satchel contract (run from satchel.contract.ts): the same
 * subscriptions, results and refusals from the engine and from RemoteSatchel.
 */
import { expect, it } from 'vitest';
import type { World } from './satchel.contract.js';

// A public address: accepted without an allow-list; nothing is sent to it (no dispatcher runs).
const PUBLIC = 'https://93.184.215.14/satchel';

export function webhookBehaviour(w: () => World): void {
  it('manages webhooks: the secret once, CRUD, the delivery log', async () => {
    const { admin } = w();
    const ws = await w().workspace('hooks');
    const created = await admin.createWebhook(ws, {
      url: PUBLIC,
      events: ['write', 'delete'],
      path: '/out/**',
    });
    expect(created).toMatchObject({
      workspace: ws,
      url: PUBLIC,
      events: ['write', 'delete'],
      path: '/out/**',
      description: null,
      enabled: true,
      disabledReason: null,
      createdBy: 'admin',
    });
    const { secret, ...hook } = created;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await admin.listWebhooks(ws)).toEqual([hook]);
    expect(await admin.getWebhook(ws, hook.id)).toEqual(hook);
    const changed = await admin.updateWebhook(ws, hook.id, {
      events: ['move'],
      path: null,
      description: 'mover',
    });
    expect(changed).toEqual({ ...hook, events: ['move'], path: null, description: 'mover' });
    expect(await admin.updateWebhook(ws, hook.id, { enabled: false })).toMatchObject({
      enabled: false,
      disabledReason: 'disabled by admin',
    });
    expect(await admin.listWebhookDeliveries(ws, hook.id, { limit: 5 })).toEqual({
      items: [],
      nextCursor: null,
    });
    await admin.deleteWebhook(ws, hook.id);
    expect(await admin.listWebhooks(ws)).toEqual([]);
    await expect(admin.getWebhook(ws, hook.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `webhook ${hook.id} not found`,
      data: { webhook: hook.id },
    });
  });

  it('refuses webhooks the same way: owners only, SSRF, bad input', async () => {
    const { admin, editor, viewer, stranger } = w();
    const ws = await w().workspace('hooks-refused');
    const hook = await admin.createWebhook(ws, { url: PUBLIC });
    for (const who of [editor, viewer]) {
      await expect(who.createWebhook(ws, { url: PUBLIC })).rejects.toMatchObject({
        code: 'FORBIDDEN',
        data: { reason: 'role', needed: 'owner' },
      });
      await expect(who.listWebhooks(ws)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(who.deleteWebhook(ws, hook.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    }
    await expect(stranger.getWebhook(ws, hook.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      admin.createWebhook(ws, { url: 'http://[::ffff:127.0.0.1]:8080/x' }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { reason: 'ssrf', field: 'url', range: 'loopback' },
    });
    await expect(admin.createWebhook(ws, { url: 'ftp://files/x' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { reason: 'scheme' },
    });
    await expect(
      admin.updateWebhook(ws, hook.id, { url: 'http://10.0.0.1/' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', data: { reason: 'ssrf' } });
    await expect(
      admin.listWebhookDeliveries(ws, hook.id, { cursor: 'garbage' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', data: { field: 'cursor' } });
    expect((await admin.listWebhooks(ws)).map((h) => h.url)).toEqual([PUBLIC]);
  });
}
