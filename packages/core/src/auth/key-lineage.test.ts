import { join } from 'node:path';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import { describe, expect, it } from 'vitest';
import { openSatchel } from '../engine/open.js';
import type { SatchelEngine } from '../engine/satchel-engine.js';
import { tempDir } from '../test-support/temp.js';

/** An engine on a clock the test moves, with `bot` (editor of `ws`) holding a root key. */
async function setup() {
  let now = Date.parse('2026-12-01T00:00:00Z');
  const engine = await openSatchel({ data: join(await tempDir(), 'data'), clock: () => now });
  await engine.createPrincipal({ name: 'bot', kind: 'agent' });
  await engine.createWorkspace('ws');
  await engine.setMember('ws', 'bot', 'editor');
  const root = await engine.createKey({ principal: 'bot', label: 'root' });
  const as = async (key: string): Promise<Satchel> => engine.as(await engine.authenticate(key));
  return { engine, root, as, advance: (ms: number) => (now += ms), now: () => now };
}

/** Authenticates `key` the way every request does, then writes with it. */
async function writeWith(engine: SatchelEngine, key: string, path: string): Promise<unknown> {
  return engine.as(await engine.authenticate(key)).writeFile('ws', path, 'x');
}

const refused = { code: 'UNAUTHENTICATED' };

describe('keys minted from keys', () => {
  it('a child never outlives a parent that expires: its expiry is clamped and reported', async () => {
    const { engine, root, as, advance, now } = await setup();
    const parent = await (await as(root.key)).createKey({ expiresInSeconds: 3 });
    const parentExpiry = now() + 3000;
    expect(Date.parse(parent.info.expiresAt ?? '')).toBe(parentExpiry);
    const viaParent = await as(parent.key);
    const forever = await viaParent.createKey({ label: 'no expiry asked' });
    const year = await viaParent.createKey({ expiresInSeconds: 365 * 86_400 });
    const sooner = await viaParent.createKey({ expiresInSeconds: 1 });
    expect(Date.parse(forever.info.expiresAt ?? '')).toBe(parentExpiry);
    expect(Date.parse(year.info.expiresAt ?? '')).toBe(parentExpiry);
    expect(Date.parse(sooner.info.expiresAt ?? '')).toBe(now() + 1000);
    const listed = new Map((await engine.listKeys({ all: true })).map((k) => [k.id, k]));
    expect(listed.get(forever.info.id)?.expiresAt).toBe(forever.info.expiresAt);

    await writeWith(engine, forever.key, '/before.txt');
    advance(3000);
    await expect(engine.authenticate(parent.key)).rejects.toMatchObject(refused);
    await expect(writeWith(engine, forever.key, '/after.txt')).rejects.toMatchObject(refused);
    await expect(writeWith(engine, year.key, '/after.txt')).rejects.toMatchObject(refused);
    await expect(engine.readText('ws', '/after.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await writeWith(engine, root.key, '/root-still-works.txt');
    await engine.close();
  });

  it('revoking a key revokes its children and grandchildren; revoking a child spares the parent', async () => {
    const { engine, root, as } = await setup();
    const parent = await (await as(root.key)).createKey({ label: 'parent' });
    const child = await (await as(parent.key)).createKey({ label: 'child' });
    const grandchild = await (await as(child.key)).createKey({ label: 'grandchild' });
    const sibling = await (await as(parent.key)).createKey({ label: 'sibling' });

    await (await as(root.key)).revokeKey(child.info.id);
    await expect(engine.authenticate(child.key)).rejects.toMatchObject(refused);
    await expect(writeWith(engine, grandchild.key, '/g.txt')).rejects.toMatchObject(refused);
    await writeWith(engine, parent.key, '/parent.txt');
    await writeWith(engine, sibling.key, '/sibling.txt');

    await engine.revokeKey(parent.info.id);
    for (const key of [parent, child, grandchild, sibling]) {
      await expect(writeWith(engine, key.key, '/x.txt')).rejects.toMatchObject(refused);
    }
    await writeWith(engine, root.key, '/root.txt');
    const listed = new Map((await engine.listKeys({ all: true })).map((k) => [k.id, k]));
    for (const key of [parent, child, grandchild, sibling]) {
      expect(listed.get(key.info.id)?.revokedAt).toEqual(expect.any(String));
    }
    expect(listed.get(root.info.id)?.revokedAt).toBeNull();
    await engine.close();
  });

  it('a key an admin’s key mints for another principal is still its child', async () => {
    const { engine, as } = await setup();
    const adminKey = await engine.createKey({ principal: 'admin', label: 'admin session' });
    const forBot = await (await as(adminKey.key)).createKey({ principal: 'bot' });
    expect(forBot.info.principal).toBe('bot');
    await writeWith(engine, forBot.key, '/bot.txt');
    await engine.revokeKey(adminKey.info.id);
    await expect(writeWith(engine, forBot.key, '/bot2.txt')).rejects.toMatchObject(refused);
    await engine.close();
  });

  it('a key holder whose parent was revoked after it authenticated cannot mint', async () => {
    const { engine, root, as } = await setup();
    const parent = await (await as(root.key)).createKey({ label: 'parent' });
    const child = await (await as(parent.key)).createKey({ label: 'child' });
    const session = await as(child.key);
    await engine.revokeKey(parent.info.id);
    await expect(session.createKey({ label: 'escape' })).rejects.toMatchObject(refused);
    expect((await engine.listKeys({ all: true })).map((k) => k.label)).not.toContain('escape');
    await engine.close();
  });

  it('bounds how deep keys nest, so authentication checks the whole chain in one bounded query', async () => {
    const { engine, root, as } = await setup();
    let key = root.key;
    for (let depth = 1; depth <= 16; depth++) {
      key = (await (await as(key)).createKey({ label: `depth ${depth}` })).key;
    }
    await writeWith(engine, key, '/deep.txt');
    await expect((await as(key)).createKey({ label: 'too deep' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'key_depth' },
    });
    await engine.revokeKey(root.info.id);
    await expect(engine.authenticate(key)).rejects.toMatchObject(refused);
    await engine.close();
  });
});
