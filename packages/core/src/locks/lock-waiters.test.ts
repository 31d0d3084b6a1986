/** Waiting for locks: woken on release and on expiry, served in arrival order, bounded. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_NAME_PROBE_LIMITS, NameProbes } from '../auth/name-probes.js';
import { RateBudgets } from '../auth/rate-budgets.js';
import { createWorkspace } from '../engine/workspaces.js';
import type { EngineContext } from '../kernel/context.js';
import { delay, openLockEngine, refusal } from '../test-support/lock-engine.js';
import { type AcquireOptions, acquireLock, type LockInfo, releaseLock } from './locks.js';

const PROBES = new NameProbes(DEFAULT_NAME_PROBE_LIMITS, new RateBudgets());

async function setup(options?: { recheckMs?: number }) {
  const e = await openLockEngine(options);
  const alice = await e.as('alice');
  const bob = await e.as('bob');
  await createWorkspace(alice, PROBES, 'ws');
  const lock = (ctx: EngineContext, options: AcquireOptions) =>
    acquireLock(ctx, e.waiters, 'ws', options);
  return { e, alice, bob, lock };
}

describe('waiting', () => {
  it('a waiter gets the lock as soon as the holder releases it', async () => {
    const { e, alice, bob, lock } = await setup();
    const held = await lock(alice, { path: '/f' });
    let granted: LockInfo | null = null;
    const waiting = lock(bob, { path: '/f', waitSeconds: 10 }).then((info) => {
      granted = info;
      return performance.now();
    });
    await delay(50);
    expect(granted).toBeNull();
    const releasedAt = performance.now();
    await releaseLock(alice, e.waiters, 'ws', held.id);
    const grantedAt = await waiting;
    // Woken by the release itself: far sooner than the 1 s safety re-check.
    expect(grantedAt - releasedAt).toBeLessThan(500);
    expect(granted).toMatchObject({ holder: 'bob', token: held.token + 1 });
  });

  it('a waiter gets the lock when the holder lease expires, woken by the expiry timer', async () => {
    // The safety re-check is pushed out of the way, so only the expiry timer can wake bob.
    const { alice, bob, lock } = await setup({ recheckMs: 60_000 });
    const held = await lock(alice, { path: '/f', ttlSeconds: 1 });
    const granted = await lock(bob, { path: '/f', waitSeconds: 5 });
    const late = Date.now() - Date.parse(held.expiresAt);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(150);
    expect(granted.holder).toBe('bob');
  });

  it('serves waiters in arrival order', async () => {
    const { e, alice, lock } = await setup();
    const held = await lock(alice, { path: '/f' });
    const order: string[] = [];
    const queued = ['bob', 'carol', 'dave'].map(async (name, i) => {
      await delay(20 * i);
      const ctx = await e.as(name);
      const info = await lock(ctx, { path: '/f', waitSeconds: 10 });
      order.push(name);
      await delay(5);
      await releaseLock(ctx, e.waiters, 'ws', info.id);
    });
    await delay(100);
    await releaseLock(alice, e.waiters, 'ws', held.id);
    await Promise.all(queued);
    expect(order).toEqual(['bob', 'carol', 'dave']);
  });

  it('a later request beneath a waiting tree lock queues behind it; unrelated ones proceed', async () => {
    const { e, alice, lock } = await setup();
    const held = await lock(alice, { path: '/d/x' });
    const erin = await e.as('erin');
    const other = await lock(erin, { path: '/e' });
    const order: string[] = [];
    const take = async (name: string, options: AcquireOptions) => {
      const ctx = await e.as(name);
      const info = await lock(ctx, { ...options, waitSeconds: 10 });
      order.push(name);
      await delay(5);
      await releaseLock(ctx, e.waiters, 'ws', info.id);
    };
    const bob = take('bob', { path: '/d', scope: 'tree' });
    await delay(20);
    // /d/y is free in the database, but bob asked for all of /d first.
    const carol = take('carol', { path: '/d/y' });
    await delay(20);
    const refused = await refusal(lock(await e.as('dave'), { path: '/d/z' }));
    expect(refused.data).toMatchObject({ reason: 'held', holder: null, path: '/d/z' });
    expect(refused.message).toContain('tree lock on /d');
    const frank = take('frank', { path: '/e' });
    await delay(20);
    expect(order).toEqual([]);
    await releaseLock(erin, e.waiters, 'ws', other.id);
    await frank;
    expect(order).toEqual(['frank']);
    await releaseLock(alice, e.waiters, 'ws', held.id);
    await Promise.all([bob, carol]);
    expect(order).toEqual(['frank', 'bob', 'carol']);
  });

  it('a wait that runs out fails with LOCKED naming the holder and until when', async () => {
    const { alice, bob, lock } = await setup();
    const held = await lock(alice, { path: '/f' });
    const started = performance.now();
    const error = await refusal(lock(bob, { path: '/f', waitSeconds: 0.3 }));
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(1000);
    expect(error.code).toBe('LOCKED');
    expect(error.message).toContain('alice');
    expect(error.message).toContain(held.expiresAt);
    expect(error.data).toMatchObject({ reason: 'held', holder: 'alice', lockId: held.id });
  });

  it('closing fails requests that are still waiting', async () => {
    const { e, alice, bob, lock } = await setup();
    await lock(alice, { path: '/f' });
    const waiting = refusal(lock(bob, { path: '/f', waitSeconds: 10 }));
    await delay(20);
    e.waiters.close();
    expect((await waiting).code).toBe('INTERNAL');
  });
});
