import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE, openSatchel } from '../engine/open.js';
import { tempDir } from '../test-support/temp.js';

async function setup() {
  const engine = await openSatchel({ data: join(await tempDir(), 'data') });
  await engine.createWorkspace('ws');
  const as = async (name: string, role: 'editor' | 'viewer' | 'owner') => {
    await engine.createPrincipal({ name });
    await engine.setMember('ws', name, role);
    return engine.as(await engine.authenticate((await engine.createKey({ principal: name })).key));
  };
  return { engine, alice: await as('alice', 'editor'), bob: await as('bob', 'editor') };
}

describe('locks through the Satchel interface', () => {
  it("every kind of change respects another holder's lock; the holder's token passes", async () => {
    const { engine, alice, bob } = await setup();
    await alice.writeFile('ws', '/dir/a.txt', 'a');
    const lock = await alice.acquireLock('ws', { path: '/dir', scope: 'tree', ttlSeconds: 30 });
    const refused = [
      bob.writeFile('ws', '/dir/a.txt', 'b'),
      bob.appendFile('ws', '/dir/a.txt', 'b'),
      bob.editFile('ws', '/dir/a.txt', [{ oldText: 'a', newText: 'b' }]),
      bob.mkdir('ws', '/dir/sub'),
      bob.remove('ws', '/dir/a.txt'),
      bob.remove('ws', '/dir', { recursive: true }),
      bob.move('ws', '/dir/a.txt', '/elsewhere.txt'),
      bob.copy('ws', '/dir/a.txt', '/dir/copy.txt'),
      bob.writeFiles('ws', [{ path: '/dir/new.txt', content: 'x' }]),
    ];
    for (const attempt of refused) {
      await expect(attempt).rejects.toMatchObject({
        code: 'LOCKED',
        data: { reason: 'held', holder: 'alice' },
      });
    }
    await bob.writeFile('ws', '/outside.txt', 'fine');
    await alice.writeFile('ws', '/dir/a.txt', 'by the holder', { lockToken: lock.token });
    await alice.releaseLock('ws', lock.id);
    await expect(
      alice.writeFile('ws', '/dir/a.txt', 'late', { lockToken: lock.token }),
    ).rejects.toMatchObject({ code: 'LOCKED', data: { reason: 'stale_token' } });
    await bob.writeFile('ws', '/dir/a.txt', 'now free');
    await engine.close();
  });

  it('tells a holder whether its lock is still live, by id', async () => {
    const { engine, alice, bob } = await setup();
    const lock = await alice.acquireLock('ws', { path: '/x', ttlSeconds: 600 });
    expect(await bob.getLock('ws', lock.id)).toEqual(lock);
    await alice.releaseLock('ws', lock.id);
    await expect(alice.getLock('ws', lock.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `live lock ${lock.id} not found`,
    });
    await expect(alice.getLock('nope', lock.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await engine.close();
  });

  it('only owners break locks, and the break is audited', async () => {
    const { engine, alice, bob } = await setup();
    const lock = await alice.acquireLock('ws', { path: '/x', ttlSeconds: 600 });
    await expect(bob.breakLock('ws', lock.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(bob.releaseLock('ws', lock.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await engine.breakLock('ws', lock.id);
    expect(await alice.listLocks('ws')).toEqual([]);
    const audit = await engine.listAudit({ workspace: 'ws', limit: 1000 });
    // Entries are in commit order: a refusal's entry is group-committed up to 100 ms later.
    const breaks = audit.items.filter((e) => e.action === 'breakLock');
    expect(breaks.map((e) => [e.actor, e.outcome]).sort()).toEqual([
      ['admin', 'ok'],
      ['bob', 'refused'],
    ]);
    await engine.close();
  });

  it('tokens keep increasing when a workspace is deleted and created again', async () => {
    const { engine } = await setup();
    const first = await engine.acquireLock('ws', { path: '/a' });
    const second = await engine.acquireLock('ws', { path: '/b' });
    await engine.deleteWorkspace('ws');
    await engine.createWorkspace('ws');
    const third = await engine.acquireLock('ws', { path: '/a' });
    expect(second.token).toBeGreaterThan(first.token);
    expect(third.token).toBeGreaterThan(second.token);
    await engine.close();
  });

  it('tokens stay above everything handed out even if lease commits were lost with the machine', async () => {
    const data = join(await tempDir(), 'data');
    let engine = await openSatchel({ data });
    await engine.createWorkspace('ws');
    const before = await engine.acquireLock('ws', { path: '/a' });
    await engine.close();
    // Lease commits skip the fsync: simulate a power loss that lost the last ones.
    const db = new BetterSqlite3(join(data, DATABASE_FILE));
    db.prepare('update workspaces set fence = 0').run();
    db.close();
    engine = await openSatchel({ data });
    const after = await engine.acquireLock('ws', { path: '/b' });
    expect(after.token).toBeGreaterThan(before.token);
    await engine.close();
  });
});
