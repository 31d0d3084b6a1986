/** Locks: lock_file, renew_lock, unlock_file, list_locks. */

import type { Lock } from '@satchel/core';
import { z } from 'zod';
import {
  type AnyTool,
  argOf,
  checkPath,
  defineTool,
  optionsOf,
  PathArg,
  resultOf,
  WorkspaceArg,
} from '../tool.js';

const LockIdArg = argOf('renewLock', 'id').min(1).max(200);

// The lock as lock_file and renew_lock return it: its id is called lockId, as in the arguments.
const LockOutput = {
  lockId: z.string(),
  ...resultOf('acquireLock').pick({
    token: true,
    expiresAt: true,
    path: true,
    scope: true,
    mode: true,
    holder: true,
  }).shape,
};

function lockOut(lock: Lock) {
  return {
    lockId: lock.id,
    token: lock.token,
    expiresAt: lock.expiresAt,
    path: lock.path,
    scope: lock.scope,
    mode: lock.mode,
    holder: lock.holder,
  };
}

const lockFile = defineTool({
  name: 'lock_file',
  title: 'Lock file',
  description:
    'Lease a file (or scope "tree"): writes without its token fail, yours too. Pass it as lockToken; renew_lock before expiresAt; unlock_file.',
  operation: 'acquireLock',
  hints: { destructive: false, idempotent: false },
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    mode: optionsOf('acquireLock').shape.mode.describe('default exclusive'),
    scope: optionsOf('acquireLock').shape.scope.describe('default file'),
    ttlSeconds: optionsOf('acquireLock').shape.ttlSeconds.describe('default 60'),
    waitSeconds: optionsOf('acquireLock').shape.waitSeconds.describe('wait for a holder'),
  },
  output: LockOutput,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const lock = await ctx.satchel.acquireLock(ws, {
      ...ctx.call(),
      path: checkPath(args.path),
      mode: args.mode,
      scope: args.scope,
      ttlSeconds: args.ttlSeconds,
      waitSeconds: args.waitSeconds,
    });
    return {
      structured: lockOut(lock),
      text: `locked ${lock.path} (${lock.mode} ${lock.scope}) until ${lock.expiresAt}: lockId ${lock.id}, token ${lock.token} (pass it as lockToken)`,
    };
  },
});

const renewLock = defineTool({
  name: 'renew_lock',
  title: 'Renew lock',
  description: 'Extend a lock you hold (ttlSeconds from now); the token stays.',
  operation: 'renewLock',
  hints: { destructive: false, idempotent: true },
  input: {
    workspace: WorkspaceArg,
    lockId: LockIdArg,
    ttlSeconds: optionsOf('renewLock').shape.ttlSeconds.describe('default 60'),
  },
  output: LockOutput,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const lock = await ctx.satchel.renewLock(ws, args.lockId, { ttlSeconds: args.ttlSeconds });
    return { structured: lockOut(lock), text: `lock ${lock.id} renewed until ${lock.expiresAt}` };
  },
});

const unlockFile = defineTool({
  name: 'unlock_file',
  title: 'Unlock file',
  description: 'Release a lock you hold; its token stops working at once.',
  operation: 'releaseLock',
  hints: { destructive: false, idempotent: true },
  input: { workspace: WorkspaceArg, lockId: LockIdArg },
  output: { lockId: z.string(), released: z.boolean() },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    await ctx.satchel.releaseLock(ws, args.lockId);
    return {
      structured: { lockId: args.lockId, released: true },
      text: `released lock ${args.lockId}`,
    };
  },
});

const listLocks = defineTool({
  name: 'list_locks',
  title: 'List locks',
  description: 'Live locks (of the workspace, or covering path): holder, mode, scope, expiry.',
  operation: 'listLocks',
  input: {
    workspace: WorkspaceArg,
    path: optionsOf('listLocks').shape.path,
  },
  output: { locks: resultOf('listLocks') },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const path = args.path === undefined ? undefined : checkPath(args.path);
    const locks = await ctx.satchel.listLocks(ws, path === undefined ? {} : { path });
    const lines = locks.map(
      (l) =>
        `${l.id}: ${l.mode} ${l.scope} lock on ${l.path} held by ${l.holder} until ${l.expiresAt}`,
    );
    return { structured: { locks }, text: lines.length === 0 ? 'no live locks' : lines.join('\n') };
  },
});

export const lockTools: AnyTool[] = [lockFile, renewLock, unlockFile, listLocks];
