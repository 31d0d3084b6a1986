/** Test support for locks: engine contexts per principal on one SQLite file, with a movable clock. */
import { join } from 'node:path';
import { SatchelError } from '@satchel/client/errors.js';
import { afterEach } from 'vitest';
import { DEFAULT_LIMITS } from '../engine/open.js';
import { type Actor, UNSCOPED } from '../kernel/actor.js';
import type { EngineContext } from '../kernel/context.js';
import { LockWaiters } from '../locks/lock-waiters.js';
import { GroupCommitter } from '../store/group-commit.js';
import { MemoryBlobStore } from '../store/memory-blob-store.js';
import { MetadataStore } from '../store/metadata/metadata-store.js';
import { openSqlite, SQLITE_DIALECT } from '../store/metadata/sqlite.js';
import { rawDatabase } from '../store/metadata/testing.js';
import { tempDir } from './temp.js';

const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

export interface LockEngineOptions {
  /** Reopen an existing database file instead of a fresh one. */
  readonly file?: string;
  /** The waiters' safety re-check interval. */
  readonly recheckMs?: number;
  /** A clock that only moves when the test calls `advance`, for exact lease arithmetic. */
  readonly frozen?: boolean;
}

export interface LockEngine {
  readonly file: string;
  readonly store: MetadataStore;
  readonly waiters: LockWaiters;
  /** A context acting as principal `name` (created on first use: workspaces record owners). */
  as(name: string): Promise<EngineContext>;
  /** Moves the clock forward, as if `ms` had passed. */
  advance(ms: number): void;
  /** Closes waiters and store; also done after each test. */
  close(): Promise<void>;
}

/**
 * The pieces `openSatchel` wires, built by hand so that tests can act as several principals on
 * the same stores. The clock is real time plus whatever `advance` skipped (or frozen).
 */
export async function openLockEngine(options: LockEngineOptions = {}): Promise<LockEngine> {
  const file = options.file ?? join(await tempDir(), 'satchel.db');
  const store = new MetadataStore(openSqlite(file), SQLITE_DIALECT);
  await store.migrate();
  const committer = new GroupCommitter(store);
  const blobs = new MemoryBlobStore();
  const start = Date.now();
  let offset = 0;
  const clock = options.frozen ? () => start + offset : () => Date.now() + offset;
  const waiters = new LockWaiters({ clock, recheckMs: options.recheckMs });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    waiters.close();
    await store.close();
  };
  closers.push(close);
  const as = async (name: string): Promise<EngineContext> => {
    await rawDatabase(store)
      .insertInto('principals')
      .values({ id: `id-${name}`, name, kind: 'agent', created_at: 0 })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    const actor: Actor = {
      principalId: `id-${name}`,
      name,
      kind: 'agent',
      admin: false,
      keyId: null,
      scope: UNSCOPED,
    };
    return {
      store,
      blobs,
      clock,
      limits: DEFAULT_LIMITS,
      actor,
      commit: (op) => committer.run(op),
    };
  };
  const advance = (ms: number) => {
    offset += ms;
  };
  return { file, store, waiters, as, advance, close };
}

/** The SatchelError a call fails with; fails the test if it succeeds or throws something else. */
export async function refusal(promise: Promise<unknown>): Promise<SatchelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SatchelError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

export const delay = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
