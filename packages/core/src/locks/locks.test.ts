/** Locks on a real SQLite file: lifecycle, conflicts, expiry, fencing tokens, write checks. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_NAME_PROBE_LIMITS, NameProbes } from '../auth/name-probes.js';
import { RateBudgets } from '../auth/rate-budgets.js';
import { createWorkspace } from '../engine/workspaces.js';
import { writeFile } from '../engine/write.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { rawDatabase } from '../store/metadata/testing.js';
import { type LockEngine, openLockEngine, refusal } from '../test-support/lock-engine.js';
import {
  type AcquireOptions,
  acquireLock,
  breakLock,
  checkWriteLocks,
  listLocks,
  releaseLock,
  renewLock,
} from './locks.js';

const PROBES = new NameProbes(DEFAULT_NAME_PROBE_LIMITS, new RateBudgets());

async function setup(options?: { frozen?: boolean }) {
  const e = await openLockEngine(options);
  const alice = await e.as('alice');
  const bob = await e.as('bob');
  await createWorkspace(alice, PROBES, 'ws');
  const wsId = (await requireWorkspace(e.store, 'ws')).id;
  const lock = (ctx: EngineContext, options: AcquireOptions) =>
    acquireLock(ctx, e.waiters, 'ws', options);
  const check = (ctx: EngineContext, path: string, tree: boolean, token?: number) =>
    ctx.commit((tx) => checkWriteLocks(tx, ctx, wsId, { path, tree }, token, ctx.clock()));
  return { e, alice, bob, wsId, lock, check };
}

describe('acquire, renew, release, list', () => {
  it('grants a lock with a token, lists, renews and releases it', async () => {
    const { e, alice, lock } = await setup({ frozen: true });
    const held = await lock(alice, { path: 'f.txt', ttlSeconds: 30, session: 'run-1' });
    expect(held).toMatchObject({
      workspace: 'ws',
      path: '/f.txt',
      scope: 'file',
      mode: 'exclusive',
      token: 1,
      holder: 'alice',
      session: 'run-1',
    });
    expect(Date.parse(held.expiresAt) - Date.parse(held.acquiredAt)).toBe(30_000);
    expect(await listLocks(alice, 'ws')).toEqual([held]);
    expect(await listLocks(alice, 'ws', { path: '/' })).toEqual([held]);
    expect(await listLocks(alice, 'ws', { path: '/f.txt' })).toEqual([held]);
    expect(await listLocks(alice, 'ws', { path: '/other' })).toEqual([]);

    e.advance(10_000);
    const renewed = await renewLock(alice, e.waiters, 'ws', held.id, { ttlSeconds: 60 });
    expect(renewed.token).toBe(held.token);
    expect(Date.parse(renewed.expiresAt)).toBe(Date.parse(held.acquiredAt) + 70_000);

    await releaseLock(alice, e.waiters, 'ws', held.id);
    expect(await listLocks(alice, 'ws')).toEqual([]);
    expect((await refusal(releaseLock(alice, e.waiters, 'ws', held.id))).code).toBe('NOT_FOUND');
    expect((await refusal(renewLock(alice, e.waiters, 'ws', held.id))).code).toBe('NOT_FOUND');
  });

  it('defaults to an exclusive file lock for 60 s; the root can only be tree-locked', async () => {
    const { e, alice, lock } = await setup();
    const held = await lock(alice, { path: '/a' });
    expect(held).toMatchObject({ scope: 'file', mode: 'exclusive', session: null });
    expect(Date.parse(held.expiresAt) - Date.parse(held.acquiredAt)).toBe(60_000);
    expect((await refusal(lock(alice, { path: '/' }))).code).toBe('INVALID_PATH');
    await releaseLock(alice, e.waiters, 'ws', held.id);
    expect((await lock(alice, { path: '/', scope: 'tree' })).path).toBe('/');
  });

  it('refuses bad input with INVALID_INPUT or INVALID_PATH and unknown workspaces with NOT_FOUND', async () => {
    const { e, alice, lock } = await setup();
    const bad: AcquireOptions[] = [
      { path: '/f', ttlSeconds: 0 },
      { path: '/f', ttlSeconds: 3601 },
      { path: '/f', ttlSeconds: 1.5 },
      { path: '/f', waitSeconds: 301 },
      { path: '/f', waitSeconds: -1 },
      { path: '/f', mode: 'weird' as 'shared' },
    ];
    for (const options of bad)
      expect((await refusal(lock(alice, options))).code).toBe('INVALID_INPUT');
    expect((await refusal(lock(alice, { path: '/a/../b' }))).code).toBe('INVALID_PATH');
    const missing = acquireLock(alice, e.waiters, 'nope', { path: '/f' });
    expect((await refusal(missing)).code).toBe('NOT_FOUND');
    expect((await refusal(renewLock(alice, e.waiters, 'ws', 'no-such-id'))).code).toBe('NOT_FOUND');
    expect((await refusal(listLocks(alice, 'nope'))).code).toBe('NOT_FOUND');
  });
});

describe('conflicts', () => {
  const cases: Array<[string, boolean, AcquireOptions, AcquireOptions]> = [
    ['same file, exclusive + exclusive', true, { path: '/f' }, { path: '/f' }],
    [
      'same file, shared + shared',
      false,
      { path: '/f', mode: 'shared' },
      { path: '/f', mode: 'shared' },
    ],
    ['same file, shared + exclusive', true, { path: '/f', mode: 'shared' }, { path: '/f' }],
    ['same file, exclusive + shared', true, { path: '/f' }, { path: '/f', mode: 'shared' }],
    ['file under an exclusive tree', true, { path: '/a', scope: 'tree' }, { path: '/a/b/c' }],
    ['tree over a locked file', true, { path: '/a/b/c' }, { path: '/a', scope: 'tree' }],
    [
      'shared file under a shared tree',
      false,
      { path: '/a', scope: 'tree', mode: 'shared' },
      { path: '/a/b', mode: 'shared' },
    ],
    [
      'shared file under an exclusive tree',
      true,
      { path: '/a', scope: 'tree' },
      { path: '/a/b', mode: 'shared' },
    ],
    ['file lock on a directory vs its child', false, { path: '/a' }, { path: '/a/b' }],
    ['siblings', false, { path: '/a/x' }, { path: '/a/y' }],
    ['"/a" tree vs "/a-b"', false, { path: '/a', scope: 'tree' }, { path: '/a-b' }],
    ['root tree vs anything', true, { path: '/', scope: 'tree' }, { path: '/deep/down/file' }],
  ];

  it.each(cases)('%s → conflict: %s', async (_name, conflict, existing, requested) => {
    const { alice, bob, lock } = await setup();
    const held = await lock(alice, existing);
    const attempt = lock(bob, requested);
    if (!conflict) {
      expect((await attempt).holder).toBe('bob');
      return;
    }
    const error = await refusal(attempt);
    expect(error.code).toBe('LOCKED');
    expect(error.data).toMatchObject({ reason: 'held', holder: 'alice', lockId: held.id });
    expect(error.data.expiresAt).toBe(held.expiresAt);
    expect(error.message).toContain('alice');
    expect(error.message).toContain(held.expiresAt);
  });

  it('re-acquiring what you hold conflicts unless both are shared', async () => {
    const { alice, lock } = await setup();
    await lock(alice, { path: '/f' });
    expect((await refusal(lock(alice, { path: '/f' }))).code).toBe('LOCKED');
    await lock(alice, { path: '/g', mode: 'shared' });
    expect((await lock(alice, { path: '/g', mode: 'shared' })).holder).toBe('alice');
  });

  it('only the holder renews or releases (FORBIDDEN); breaking records who broke it', async () => {
    const { e, alice, bob, lock } = await setup();
    const held = await lock(alice, { path: '/f' });
    expect((await refusal(releaseLock(bob, e.waiters, 'ws', held.id))).code).toBe('FORBIDDEN');
    expect((await refusal(renewLock(bob, e.waiters, 'ws', held.id))).code).toBe('FORBIDDEN');
    expect(await breakLock(bob, e.waiters, 'ws', held.id)).toEqual(held);
    const row = await rawDatabase(e.store)
      .selectFrom('locks')
      .select(['released_by', 'released_at'])
      .where('id', '=', held.id)
      .executeTakeFirstOrThrow();
    expect(row.released_by).toBe('bob');
    expect(row.released_at).not.toBeNull();
    expect(await listLocks(alice, 'ws')).toEqual([]);
    expect((await refusal(releaseLock(alice, e.waiters, 'ws', held.id))).code).toBe('NOT_FOUND');
  });
});

describe('expiry', () => {
  it('an expired lease frees itself', async () => {
    const { e, alice, bob, lock } = await setup();
    const held = await lock(alice, { path: '/f', ttlSeconds: 5 });
    e.advance(5_000);
    expect(await listLocks(alice, 'ws')).toEqual([]);
    const next = await lock(bob, { path: '/f' });
    expect(next.token).toBeGreaterThan(held.token);
    expect((await refusal(renewLock(alice, e.waiters, 'ws', held.id))).code).toBe('NOT_FOUND');
    expect((await refusal(releaseLock(alice, e.waiters, 'ws', held.id))).code).toBe('NOT_FOUND');
  });
});

describe('fencing tokens', () => {
  async function cycle(e: LockEngine, workspace: string, times: number): Promise<number[]> {
    const ctx = await e.as('alice');
    const tokens: number[] = [];
    for (let i = 0; i < times; i++) {
      const info = await acquireLock(ctx, e.waiters, workspace, { path: '/f' });
      tokens.push(info.token);
      await releaseLock(ctx, e.waiters, workspace, info.id);
    }
    return tokens;
  }

  it('strictly increase per workspace, also across close and reopen', async () => {
    const first = await openLockEngine();
    await createWorkspace(await first.as('alice'), PROBES, 'ws');
    await createWorkspace(await first.as('alice'), PROBES, 'other');
    const before = await cycle(first, 'ws', 3);
    expect(before).toEqual([1, 2, 3]);
    expect(await cycle(first, 'other', 1)).toEqual([1]);
    await first.close();

    const second = await openLockEngine({ file: first.file });
    const after = await cycle(second, 'ws', 2);
    expect(after).toEqual([4, 5]);
  });
});

describe('checkWriteLocks', () => {
  it('refuses a write under an exclusive lock to everyone without its token, the holder too', async () => {
    const { alice, bob, lock, check } = await setup();
    const held = await lock(alice, { path: '/f' });
    const error = await refusal(check(bob, '/f', false));
    expect(error.code).toBe('LOCKED');
    expect(error.data).toMatchObject({ reason: 'held', holder: 'alice', path: '/f' });
    expect(error.data.expiresAt).toBe(held.expiresAt);
    // Another worker sharing alice's key, without the token: refused as well.
    const own = await refusal(check(alice, '/f', false));
    expect(own.data).toMatchObject({ reason: 'held', holder: 'alice', lockId: held.id });
    await check(alice, '/f', false, held.token);
    await check(bob, '/g', false);
    await check(alice, '/g', false);
  });

  it('ignores shared locks of others', async () => {
    const { alice, bob, lock, check } = await setup();
    await lock(alice, { path: '/f', mode: 'shared' });
    await check(bob, '/f', false);
  });

  it('a tree lock guards everything beneath it, and only that', async () => {
    const { alice, bob, lock, check } = await setup();
    await writeFile(alice, 'ws', '/d/x/y', 'content');
    await lock(alice, { path: '/d', scope: 'tree' });
    expect((await refusal(check(bob, '/d/x/y', false))).code).toBe('LOCKED');
    expect((await refusal(check(bob, '/d', false))).code).toBe('LOCKED');
    await check(bob, '/d-e', false);
  });

  it('a change to a whole tree is refused when a file beneath it is locked', async () => {
    const { alice, bob, lock, check } = await setup();
    await writeFile(alice, 'ws', '/d/x', 'content');
    await lock(alice, { path: '/d/x' });
    const error = await refusal(check(bob, '/d', true));
    expect(error.data).toMatchObject({ reason: 'held', holder: 'alice' });
    await check(bob, '/d', false);
  });

  it('accepts the live token of a lock the caller holds that covers the path', async () => {
    const { alice, lock, check } = await setup();
    const held = await lock(alice, { path: '/d', scope: 'tree' });
    await check(alice, '/d/x', false, held.token);
    await check(alice, '/d', true, held.token);
  });

  it('refuses stale tokens with reason stale_token, saying why', async () => {
    const { e, alice, bob, lock, check } = await setup();
    const stale = async (ctx: EngineContext, path: string, token: number) => {
      const error = await refusal(check(ctx, path, false, token));
      expect(error.code).toBe('LOCKED');
      expect(error.data.reason).toBe('stale_token');
      return error;
    };

    const expired = await lock(alice, { path: '/expired', ttlSeconds: 5 });
    e.advance(5_000);
    const byExpiry = await stale(alice, '/expired', expired.token);
    expect(byExpiry.data.cause).toBe('expired');
    expect(byExpiry.message).toContain('expired');

    const successor = await lock(bob, { path: '/expired' });
    const bySuccessor = await stale(alice, '/expired', expired.token);
    expect(bySuccessor.data).toMatchObject({ cause: 'superseded', supersededBy: successor.token });
    expect(bySuccessor.message).toContain(`superseded by token ${successor.token}`);

    const released = await lock(alice, { path: '/released' });
    await releaseLock(alice, e.waiters, 'ws', released.id);
    expect((await stale(alice, '/released', released.token)).data.cause).toBe('released');

    const broken = await lock(alice, { path: '/broken' });
    await breakLock(bob, e.waiters, 'ws', broken.id);
    expect((await stale(alice, '/broken', broken.token)).message).toContain('broken by bob');

    const elsewhere = await lock(alice, { path: '/g' });
    const notCovering = await stale(alice, '/f', elsewhere.token);
    expect(notCovering.data.cause).toBe('not_covering');
    expect(notCovering.message).toContain('does not cover /f');

    expect((await stale(bob, '/g', elsewhere.token)).data.cause).toBe('not_holder');
    expect((await stale(alice, '/g', 999)).data.cause).toBe('unknown');
  });
});
