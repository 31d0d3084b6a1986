/** Operations on locks: leases on a file or subtree whose fencing tokens guard writes. */
import { z } from 'zod';
import { AcquireLockSchema, CallOptionsSchema, LockSchema } from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';

const LOCK_ID_ARG = ['id', z.string()] as const;

const ONE_ROUTE =
  'one route: DELETE …/locks/:id releases, with ?break=true breaks (routes/locks.ts)';

export const acquireLock = operation({
  name: 'acquireLock',
  summary: 'Lock a file or subtree, optionally waiting; the token fences writes',
  tag: 'locks',
  args: [WORKSPACE_ARG],
  options: AcquireLockSchema,
  optionsRequired: true,
  result: LockSchema,
  access: { workspace: 'lock.write', paths: ([, options]) => [options?.path] },
  auditPath: ([, options]) => options?.path,
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/locks', status: 201 },
});

export const renewLock = operation({
  name: 'renewLock',
  summary: 'Extend a lock you hold',
  tag: 'locks',
  args: [WORKSPACE_ARG, LOCK_ID_ARG],
  options: CallOptionsSchema.extend({ ttlSeconds: AcquireLockSchema.shape.ttlSeconds }),
  result: LockSchema,
  access: { workspace: 'lock.write' },
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/locks/:id/renew' },
});

export const releaseLock = operation({
  name: 'releaseLock',
  summary: 'Release a lock you hold',
  tag: 'locks',
  args: [WORKSPACE_ARG, LOCK_ID_ARG],
  options: CallOptionsSchema,
  access: { workspace: 'lock.write' },
  mutates: true,
  http: { custom: ONE_ROUTE },
});

export const breakLock = operation({
  name: 'breakLock',
  summary: "Release someone else's lock (owners); audited",
  tag: 'locks',
  args: [WORKSPACE_ARG, LOCK_ID_ARG],
  options: CallOptionsSchema,
  result: LockSchema,
  access: { workspace: 'lock.break' },
  mutates: true,
  http: { custom: ONE_ROUTE },
});

export const getLock = operation({
  name: 'getLock',
  summary: 'One live lock by id: NOT_FOUND once it is released, broken or expired',
  tag: 'locks',
  args: [WORKSPACE_ARG, LOCK_ID_ARG],
  result: LockSchema,
  access: { workspace: 'lock.read' },
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws/locks/:id' },
});

export const listLocks = operation({
  name: 'listLocks',
  summary: 'Live locks, optionally only those on or around a path',
  tag: 'locks',
  args: [WORKSPACE_ARG],
  options: z.object({ path: z.string().optional() }),
  result: z.array(LockSchema),
  access: { workspace: 'lock.read' },
  auditPath: ([, options]) => options?.path ?? null,
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws/locks', query: { path: 'string' }, list: true },
});
