/** Webhook subscriptions on a real data directory: CRUD, owners only, the SSRF guard, secrets at rest. */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSatchel } from '../engine/open.js';
import { openTemp, tempDir } from '../test-support/temp.js';
import { WEBHOOK_KEY_FILE } from './secret-box.js';
import { AllowList, checkWebhookUrl } from './ssrf.js';

// A public address: accepted without an allow-list. Nothing is ever sent to it (no dispatcher).
const PUBLIC = 'https://93.184.215.14/hooks/satchel';

describe('webhook subscriptions', () => {
  it('creates, lists, gets, updates and deletes; the secret is shown once', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/before.txt', 'x');
    const created = await satchel.createWebhook('ws', {
      url: PUBLIC,
      events: ['write', 'delete'],
      path: '/reports/**',
      description: 'report bot',
    });
    expect(created).toMatchObject({
      workspace: 'ws',
      url: PUBLIC,
      events: ['write', 'delete'],
      path: '/reports/**',
      description: 'report bot',
      enabled: true,
      disabledReason: null,
      createdBy: 'admin',
    });
    expect(created.id).toMatch(/^wh_[0-9a-f]{16}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const { secret, ...shown } = created;
    expect(await satchel.listWebhooks('ws')).toEqual([shown]);
    expect(await satchel.getWebhook('ws', created.id)).toEqual(shown);
    expect(JSON.stringify(await satchel.listWebhooks('ws'))).not.toContain(secret);

    const all = await satchel.createWebhook('ws', { url: 'http://93.184.215.14:8080/all' });
    expect(all.events).toEqual([
      'write',
      'append',
      'edit',
      'mkdir',
      'delete',
      'move',
      'copy',
      'restore',
      'comment.created',
      'comment.resolved',
    ]);
    expect(all.path).toBeNull();
    expect(all.secret).not.toBe(secret);

    const paused = await satchel.updateWebhook('ws', created.id, {
      enabled: false,
      path: null,
      events: ['edit'],
    });
    expect(paused).toMatchObject({
      enabled: false,
      disabledReason: 'disabled by admin',
      path: null,
      events: ['edit'],
    });
    expect(await satchel.updateWebhook('ws', created.id, { enabled: true })).toMatchObject({
      enabled: true,
      disabledReason: null,
    });
    // History before the subscription is never sent: the log starts empty.
    expect(await satchel.listWebhookDeliveries('ws', created.id)).toEqual({
      items: [],
      nextCursor: null,
    });

    await satchel.deleteWebhook('ws', created.id);
    expect((await satchel.listWebhooks('ws')).map((w) => w.id)).toEqual([all.id]);
    await expect(satchel.getWebhook('ws', created.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      data: { webhook: created.id },
    });
    await expect(satchel.deleteWebhook('ws', created.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(satchel.listWebhooks('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses bad input with INVALID_INPUT and writes nothing', async () => {
    const { satchel } = await openTemp();
    const bad = [
      { url: '' },
      { url: 'not a url' },
      { url: PUBLIC, events: [] },
      { url: PUBLIC, events: ['explode'] },
      { url: PUBLIC, path: '' },
    ];
    for (const input of bad) {
      // biome-ignore lint/suspicious/noExplicitAny: deliberately malformed input
      await expect(satchel.createWebhook('ws', input as any)).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
    }
    const hook = await satchel.createWebhook('ws', { url: PUBLIC });
    await expect(
      satchel.updateWebhook('ws', hook.id, { url: 'http://127.0.0.1/x' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', data: { reason: 'ssrf' } });
    expect((await satchel.getWebhook('ws', hook.id)).url).toBe(PUBLIC);
    expect(await satchel.listWebhooks('ws')).toHaveLength(1);
  });

  it('is for owners only: editors get FORBIDDEN, strangers NOT_FOUND', async () => {
    const { satchel } = await openTemp();
    const hook = await satchel.createWebhook('ws', { url: PUBLIC });
    await satchel.createPrincipal({ name: 'ed' });
    await satchel.setMember('ws', 'ed', 'editor');
    await satchel.createPrincipal({ name: 'st' });
    const editor = satchel.as(
      await satchel.authenticate((await satchel.createKey({ principal: 'ed' })).key),
    );
    const stranger = satchel.as(
      await satchel.authenticate((await satchel.createKey({ principal: 'st' })).key),
    );
    const refusal = {
      code: 'FORBIDDEN',
      data: { reason: 'role', role: 'editor', needed: 'owner' },
    };
    await expect(editor.createWebhook('ws', { url: PUBLIC })).rejects.toMatchObject(refusal);
    await expect(editor.listWebhooks('ws')).rejects.toMatchObject(refusal);
    await expect(editor.getWebhook('ws', hook.id)).rejects.toMatchObject(refusal);
    await expect(editor.updateWebhook('ws', hook.id, { enabled: false })).rejects.toMatchObject(
      refusal,
    );
    await expect(editor.deleteWebhook('ws', hook.id)).rejects.toMatchObject(refusal);
    await expect(editor.listWebhookDeliveries('ws', hook.id)).rejects.toMatchObject(refusal);
    await expect(stranger.listWebhooks('ws')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await satchel.getWebhook('ws', hook.id)).toMatchObject({ enabled: true });

    const audit = await satchel.listAudit({ workspace: 'ws' });
    const actions = audit.items.map((e) => `${e.actor} ${e.action} ${e.outcome}`);
    expect(actions).toContain('admin createWebhook ok');
    expect(actions).toContain('ed createWebhook refused');
  });

  it('keeps the secret encrypted at rest, under a 0600 key in the data directory', async () => {
    const { satchel, data } = await openTemp();
    const hook = await satchel.createWebhook('ws', { url: PUBLIC });
    const body = hook.secret.slice('whsec_'.length);
    const raw = Buffer.from(body, 'base64');
    for (const file of await readdir(data)) {
      if (!file.startsWith('satchel.db')) continue;
      const bytes = await readFile(join(data, file));
      expect(bytes.includes(hook.secret), file).toBe(false);
      expect(bytes.includes(body), file).toBe(false);
      expect(bytes.includes(raw), file).toBe(false);
    }
    expect((await stat(join(data, WEBHOOK_KEY_FILE))).mode & 0o777).toBe(0o600);
  });

  it("stop when their creator stops owning the workspace, saying why; others' keep going", async () => {
    const { satchel } = await openTemp();
    const key = async (name: string) =>
      satchel.as(await satchel.authenticate((await satchel.createKey({ principal: name })).key));
    for (const name of ['alice', 'bob', 'carol']) await satchel.createPrincipal({ name });
    await satchel.setMember('ws', 'alice', 'owner');
    await satchel.setMember('ws', 'carol', 'owner');
    const alice = await key('alice');
    const carol = await key('carol');
    const byAlice = await alice.createWebhook('ws', { url: PUBLIC });
    const byCarol = await carol.createWebhook('ws', { url: PUBLIC });
    // A transfer that leaves alice an editor stops her subscription.
    const offer = await alice.offerTransfer('ws', { to: 'bob' });
    await (await key('bob')).acceptTransfer(offer.code);
    const stopped = await carol.getWebhook('ws', byAlice.id);
    expect(stopped.enabled).toBe(false);
    expect(stopped.disabledReason).toContain('alice no longer owns ws');
    expect(await carol.getWebhook('ws', byCarol.id)).toMatchObject({ enabled: true });
    // Demoting and removing an owner do the same.
    await satchel.setMember('ws', 'carol', 'editor');
    expect(await satchel.getWebhook('ws', byCarol.id)).toMatchObject({ enabled: false });
    await satchel.updateWebhook('ws', byCarol.id, { enabled: true });
    await satchel.setMember('ws', 'carol', 'owner');
    await satchel.removeMember('ws', 'carol');
    expect(await satchel.getWebhook('ws', byCarol.id)).toMatchObject({ enabled: false });
  });

  it('deleting the workspace deletes its webhooks', async () => {
    const { satchel } = await openTemp();
    await satchel.createWebhook('ws', { url: PUBLIC });
    await satchel.deleteWorkspace('ws');
    await satchel.createWorkspace('ws');
    expect(await satchel.listWebhooks('ws')).toEqual([]);
  });
});

describe('SSRF guard', () => {
  const refused = [
    'http://127.0.0.1/hook',
    'http://localhost:9000/hook',
    'http://10.1.2.3/hook',
    'http://169.254.169.254/latest',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://192.168.1.10/',
    'http://[fd00::1]/',
    'http://0.0.0.0/',
  ];

  it('refuses loopback, private, link-local and metadata addresses without an allow-list', async () => {
    const { satchel } = await openTemp();
    for (const url of refused) {
      await expect(satchel.createWebhook('ws', { url }), url).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        data: { reason: 'ssrf', field: 'url' },
      });
    }
    await expect(
      satchel.createWebhook('ws', { url: 'http://169.254.169.254/latest' }),
    ).rejects.toMatchObject({ data: { address: '169.254.169.254', range: 'linkLocal' } });
    await expect(satchel.createWebhook('ws', { url: 'ftp://x/y' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { reason: 'scheme' },
    });
    await expect(
      satchel.createWebhook('ws', { url: 'https://user:pw@93.184.215.14/hook' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', data: { reason: 'credentials' } });
    expect(await satchel.listWebhooks('ws')).toEqual([]);
  });

  it('refuses private IPv4 addresses hidden in IPv6 forms, naming the address they embed', async () => {
    const allow = AllowList.parse([]);
    const hidden: Array<[string, string, string]> = [
      // IPv4-compatible (deprecated ::/96): the URL parser rewrites it as [::7f00:1].
      ['http://[::127.0.0.1]/', '127.0.0.1', 'loopback'],
      ['http://[::169.254.169.254]/latest', '169.254.169.254', 'linkLocal'],
      ['http://[::ffff:10.0.0.1]/', '10.0.0.1', 'private'],
      // IPv4-translated (RFC 6145), NAT64 (RFC 6052), 6to4 (RFC 3056), Teredo (RFC 4380).
      ['http://[::ffff:0:127.0.0.1]/', '127.0.0.1', 'loopback'],
      ['http://[64:ff9b::169.254.169.254]/', '169.254.169.254', 'linkLocal'],
      ['http://[2002:7f00:1::1]/', '127.0.0.1', 'loopback'],
      ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', '127.0.0.1', 'loopback'],
    ];
    for (const [url, embedded, range] of hidden) {
      await expect(checkWebhookUrl(url, allow), url).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        data: { reason: 'ssrf', embedded, range },
      });
    }
    // Tunnel and translation forms reach whatever the network's relay decides: refused even
    // when the IPv4 inside is public (name such a host in the allow-list to deliver to it).
    for (const url of [
      'http://[::8.8.8.8]/',
      'http://[64:ff9b::8.8.8.8]/',
      'http://[2002:808:808::1]/',
    ]) {
      await expect(checkWebhookUrl(url, allow), url).rejects.toMatchObject({
        data: { reason: 'ssrf' },
      });
    }
  });

  it('accepts what the allow-list names: addresses, CIDRs and host names', async () => {
    const data = join(await tempDir(), 'data');
    const satchel = await openSatchel({
      data,
      webhookAllow: ['127.0.0.1', '10.0.0.0/8', 'localhost'],
    });
    try {
      await satchel.createWorkspace('ws');
      for (const url of ['http://127.0.0.1:1/a', 'http://10.9.8.7/b', 'http://localhost:1/c']) {
        expect((await satchel.createWebhook('ws', { url })).url).toBe(url);
      }
      await expect(
        satchel.createWebhook('ws', { url: 'http://192.168.0.1/' }),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT', data: { reason: 'ssrf' } });
    } finally {
      await satchel.close();
    }
  });

  it('judges every resolved address, so one private answer among public ones is refused', async () => {
    const allow = AllowList.parse([]);
    const resolve = async () => ['93.184.215.14', '10.0.0.5'];
    await expect(checkWebhookUrl('https://hooks.example/x', allow, resolve)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { reason: 'ssrf', address: '10.0.0.5', range: 'private' },
    });
    const failing = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    await expect(checkWebhookUrl('https://nowhere.invalid/', allow, failing)).rejects.toMatchObject(
      { code: 'INVALID_INPUT', data: { reason: 'dns' } },
    );
  });

  it('refuses a malformed allow-list when the engine opens', async () => {
    await expect(
      openSatchel({ data: ':memory:', webhookAllow: ['10.0.0.0/99'] }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', data: { field: 'webhookAllow' } });
  });
});
