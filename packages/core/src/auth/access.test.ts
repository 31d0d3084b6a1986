import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ADMIN_KEY_FILE, DATABASE_FILE, openSatchel } from '../engine/open.js';
import type { SatchelEngine } from '../engine/satchel-engine.js';
import { tempDir } from '../test-support/temp.js';

async function engineAt(data: string, clock?: () => number): Promise<SatchelEngine> {
  return openSatchel({ data, ...(clock ? { clock } : {}) });
}

describe('admin bootstrap and keys', () => {
  it('creates the admin key once, mode 0600, and it authenticates as admin', async () => {
    const data = join(await tempDir(), 'data');
    const first = await engineAt(data);
    const key = first.createdAdminKey;
    expect(key).toMatch(/^satchel_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const file = join(data, ADMIN_KEY_FILE);
    expect((await readFile(file, 'utf8')).trim()).toBe(key);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const actor = await first.authenticate(key ?? '');
    expect(actor).toMatchObject({ name: 'admin', admin: true });
    await first.close();
    const second = await engineAt(data);
    expect(second.createdAdminKey).toBeNull();
    expect((await readFile(file, 'utf8')).trim()).toBe(key);
    await second.close();
  });

  it('stores only a hash of each secret', async () => {
    const data = join(await tempDir(), 'data');
    const engine = await engineAt(data);
    await engine.createPrincipal({ name: 'bot' });
    const { key } = await engine.createKey({ principal: 'bot' });
    await engine.close();
    const secret = key.slice('satchel_'.length + 17);
    const db = new BetterSqlite3(join(data, DATABASE_FILE), { readonly: true });
    const dump = JSON.stringify(db.prepare('select * from api_keys').all());
    db.close();
    expect(secret.length).toBe(43);
    expect(dump).not.toContain(secret);
  });

  it('a non-admin derives narrower keys for itself only', async () => {
    const engine = await engineAt(join(await tempDir(), 'data'));
    await engine.createPrincipal({ name: 'bot' });
    await engine.createWorkspace('ws');
    const scoped = await engine.createKey({ principal: 'bot', workspaces: ['ws'], role: 'editor' });
    const bot = engine.as(await engine.authenticate(scoped.key));
    const narrower = await bot.createKey({ workspaces: ['ws'], role: 'viewer', readOnly: true });
    expect(narrower.info).toMatchObject({ principal: 'bot', role: 'viewer', readOnly: true });
    await expect(bot.createKey({ workspaces: ['ws'] })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(
      bot.createKey({ principal: 'admin', workspaces: ['ws'], role: 'viewer' }),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect((await bot.listKeys()).map((k) => k.principal)).toEqual(['bot', 'bot']);
    await bot.revokeKey(narrower.info.id);
    await expect(engine.authenticate(narrower.key)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    await expect(bot.revokeKey('0000000000000000')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await engine.close();
  });
});

describe('members', () => {
  it('the creator owns a workspace, and the last owner cannot leave', async () => {
    const engine = await engineAt(join(await tempDir(), 'data'));
    await engine.createPrincipal({ name: 'bot' });
    const bot = engine.as(
      await engine.authenticate((await engine.createKey({ principal: 'bot' })).key),
    );
    await bot.createWorkspace('mine');
    expect(await bot.listMembers('mine')).toMatchObject([{ principal: 'bot', role: 'owner' }]);
    await expect(bot.removeMember('mine', 'bot')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(bot.setMember('mine', 'bot', 'viewer')).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await engine.createPrincipal({ name: 'carol', kind: 'user' });
    const carol = engine.as(
      await engine.authenticate((await engine.createKey({ principal: 'carol' })).key),
    );
    const invited = await bot.setMember('mine', 'carol', 'owner');
    if (invited.status !== 'invited')
      throw new Error(`expected an invitation, got ${invited.status}`);
    await carol.acceptInvitation(invited.id);
    await bot.removeMember('mine', 'bot');
    await expect(bot.getWorkspace('mine')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await engine.close();
  });
});

describe('ownership transfer', () => {
  async function setup() {
    let now = Date.parse('2026-12-01T00:00:00Z');
    const engine = await engineAt(join(await tempDir(), 'data'), () => now);
    const as = async (name: string) => {
      await engine.createPrincipal({ name, kind: name === 'agent' ? 'agent' : 'user' });
      return engine.as(
        await engine.authenticate((await engine.createKey({ principal: name })).key),
      );
    };
    const agent = await as('agent');
    const alice = await as('alice');
    const mallory = await as('mallory');
    await agent.createWorkspace('built');
    await agent.writeFile('built', '/result.md', 'done');
    return { engine, agent, alice, mallory, advance: (ms: number) => (now += ms) };
  }

  it('offer → accept: the claimant owns it, the agent stays as editor', async () => {
    const { engine, agent, alice } = await setup();
    const offer = await agent.offerTransfer('built', { to: 'alice' });
    expect(offer.code).toMatch(/^claim_/);
    expect(offer.status).toBe('open');
    const accepted = await alice.acceptTransfer(offer.code);
    expect(accepted.status).toBe('accepted');
    const roles = Object.fromEntries(
      (await alice.listMembers('built')).map((m) => [m.principal, m.role]),
    );
    expect(roles).toEqual({ agent: 'editor', alice: 'owner' });
    await expect(agent.offerTransfer('built')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(alice.acceptTransfer(offer.code)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      data: { reason: 'accepted' },
    });
    const audit = await engine.listAudit({ workspace: 'built', limit: 1000 });
    expect(audit.items.map((e) => e.action)).toEqual(
      expect.arrayContaining(['offerTransfer', 'acceptTransfer']),
    );
    await engine.close();
  });

  it('a narrowed key cannot take ownership; a key that covers the workspace as owner can', async () => {
    const { engine, agent } = await setup();
    const offer = await agent.offerTransfer('built');
    const key = async (scope: Parameters<typeof engine.createKey>[0]) =>
      engine.as(
        await engine.authenticate((await engine.createKey({ principal: 'alice', ...scope })).key),
      );
    for (const scope of [
      { pathPrefixes: ['/inbox'] },
      { role: 'viewer' as const },
      { workspaces: ['elsewhere'] },
      { readOnly: true },
    ]) {
      await expect((await key(scope)).acceptTransfer(offer.code)).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
    }
    const open = (await agent.listTransfers('built')).find((t) => t.id === offer.id);
    expect(open?.status).toBe('open');
    const owning = await key({ workspaces: ['built'], role: 'owner' });
    expect((await owning.acceptTransfer(offer.code)).status).toBe('accepted');
    await engine.close();
  });

  it('the offer may remove the previous owner instead', async () => {
    const { engine, agent, alice } = await setup();
    const offer = await agent.offerTransfer('built', { previousOwner: 'none' });
    await alice.acceptTransfer(offer.code);
    expect((await alice.listMembers('built')).map((m) => m.principal)).toEqual(['alice']);
    await expect(agent.stat('built', '/result.md')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await engine.close();
  });

  it('refuses the wrong principal, expired and cancelled codes, and a sixth open offer', async () => {
    const { engine, agent, alice, mallory, advance } = await setup();
    const forAlice = await agent.offerTransfer('built', { to: 'alice' });
    await expect(mallory.acceptTransfer(forAlice.code)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    const short = await agent.offerTransfer('built', { expiresInHours: 1 });
    const cancelled = await agent.offerTransfer('built');
    await agent.cancelTransfer('built', cancelled.id);
    await expect(alice.acceptTransfer(cancelled.code)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      data: { reason: 'cancelled' },
    });
    await agent.offerTransfer('built');
    await agent.offerTransfer('built');
    await agent.offerTransfer('built');
    await expect(agent.offerTransfer('built')).rejects.toMatchObject({ code: 'CONFLICT' });
    advance(2 * 3_600_000);
    await expect(alice.acceptTransfer(short.code)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      data: { reason: 'expired' },
    });
    expect((await agent.listTransfers('built')).length).toBe(4);
    await expect(alice.acceptTransfer('claim_bogus')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await agent.listMembers('built')).map((m) => m.role)).toEqual(['owner']);
    // The default expiry is 72 hours.
    advance(69 * 3_600_000);
    await alice.acceptTransfer(forAlice.code);
    await engine.close();
  });
});
