import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../test-support/temp.js';
import { openSatchel } from './open.js';
import type { SatchelEngine } from './satchel-engine.js';

const MINUTE = 60_000;

async function setup() {
  let now = Date.parse('2026-12-01T00:00:00Z');
  const data = join(await tempDir(), 'data');
  const engine = await openSatchel({ data, clock: () => now, auditFlushMs: 0 });
  onTestFinished(() => engine.close());
  const as = async (name: string, key: Parameters<SatchelEngine['createKey']>[0] = {}) => {
    if (!(await engine.listPrincipals()).items.some((p) => p.name === name)) {
      await engine.createPrincipal({ name, kind: 'user' });
    }
    const created = await engine.createKey({ ...key, principal: name });
    return engine.as(await engine.authenticate(created.key));
  };
  return { engine, as, data, advance: (ms: number) => (now += ms) };
}

describe('sign-in by login link', () => {
  it('an admin links alice in once; the session acts as alice until she signs out', async () => {
    const { engine, as } = await setup();
    const alice = await as('alice');
    await alice.createWorkspace('report');
    const link = await engine.createLoginLink({ principal: 'alice' });
    expect(link).toMatchObject({
      principal: 'alice',
      url: `/login?token=${link.token}`,
      expiresAt: '2026-12-01T00:15:00.000Z',
    });
    const started = await engine.signInWithLink(link.token, { userAgent: 'Firefox' });
    expect(started.actor.name).toBe('alice');
    expect(started.session).toMatchObject({ principal: 'alice', userAgent: 'Firefox' });
    // One-time: the same link never signs in twice.
    await expect(engine.signInWithLink(link.token)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      data: { reason: 'link' },
    });
    const { actor } = await engine.authenticateWebSession(started.cookie);
    const browser = engine.as(actor);
    expect((await browser.listWorkspaces()).items.map((w) => w.name)).toEqual(['report']);
    expect((await browser.listWebSessions()).map((s) => s.id)).toEqual([started.session.id]);
    await engine.signOutWebSession(started.cookie);
    await expect(engine.authenticateWebSession(started.cookie)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      data: { reason: 'session' },
    });
    const actions = (await engine.listAudit({ server: true })).items.map((e) => [
      e.actor,
      e.action,
      e.outcome,
    ]);
    expect(actions).toContainEqual(['alice', 'signInWithLink', 'ok']);
    expect(actions).toContainEqual(['alice', 'signOutWebSession', 'ok']);
    expect(actions).toContainEqual(['anonymous', 'signInWithLink', 'refused']);
  });

  it('refuses a link after it expires, and a session after it expires', async () => {
    const { engine, as, advance } = await setup();
    await as('alice');
    const link = await engine.createLoginLink({ principal: 'alice', expiresInSeconds: 60 });
    advance(61_000);
    await expect(engine.signInWithLink(link.token)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    const fresh = await engine.createLoginLink({ principal: 'alice' });
    const started = await engine.signInWithLink(fresh.token);
    advance(7 * 24 * 60 * MINUTE - 1);
    await engine.authenticateWebSession(started.cookie);
    advance(1);
    await expect(engine.authenticateWebSession(started.cookie)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
  });

  it('stores only hashes: neither the token nor the cookie secret is in the database', async () => {
    const { engine, as, data } = await setup();
    await as('alice');
    const link = await engine.createLoginLink({ principal: 'alice' });
    const pending = await engine.createLoginLink({ principal: 'alice' });
    const { cookie } = await engine.signInWithLink(link.token);
    const secret = cookie.split('.')[1] ?? '';
    await engine.close();
    // The database and its WAL, as bytes: what a stolen backup would give away.
    const files = (await readdir(data)).filter((f) => f.startsWith('satchel.db'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const bytes = (await readFile(join(data, file))).toString('latin1');
      expect(bytes).not.toContain(pending.token);
      expect(bytes).not.toContain(secret);
    }
  });

  it('a user links only themself, with an unnarrowed key; agents get no links', async () => {
    const { engine, as } = await setup();
    const alice = await as('alice');
    await as('bob');
    await expect(alice.createLoginLink({ principal: 'bob' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'not_admin' },
    });
    const narrowed = await as('alice', { readOnly: true });
    await expect(narrowed.createLoginLink()).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'narrowed_key' },
    });
    expect((await alice.createLoginLink()).principal).toBe('alice');
    await engine.createPrincipal({ name: 'builder', kind: 'agent' });
    await expect(engine.createLoginLink({ principal: 'builder' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { reason: 'agent' },
    });
    await expect(engine.createLoginLink({ principal: 'nobody' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('revokes one of your sessions by id; someone else’s is not found', async () => {
    const { engine, as } = await setup();
    const alice = await as('alice');
    const bob = await as('bob');
    const one = await engine.signInWithLink((await alice.createLoginLink()).token);
    const two = await engine.signInWithLink((await alice.createLoginLink()).token);
    await expect(bob.revokeWebSession(one.session.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await alice.revokeWebSession(one.session.id);
    await expect(engine.authenticateWebSession(one.cookie)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    expect((await alice.listWebSessions()).map((s) => s.id)).toEqual([two.session.id]);
    // A cookie with the right id and a wrong secret is refused.
    const forged = `${two.session.id}.${'A'.repeat(43)}`;
    await expect(engine.authenticateWebSession(forged)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
  });
});
