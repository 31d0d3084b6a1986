/** Locks: acquire (optionally waiting), list, renew, release, and break (owners). */
import { isSatchelError } from '@satchel/core';
import { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { AcquireLockBody, RenewLockBody } from '../bodies.js';
import { queryBool, readJson, sessionOption } from '../input.js';

/**
 * Routes under /v1/workspaces/:ws/locks. Acquiring with `waitSeconds` holds the request open
 * until the lock frees or the wait ends (LOCKED, 423). `DELETE …/locks/:id` releases your own
 * lock; `?break=true` releases anyone's (owners only, audited) and returns the broken lock.
 */
export function lockRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post('/workspaces/:ws/locks', async (c) => {
    const body = await readJson(c, AcquireLockBody, config.maxJsonBytes);
    // Lock wait as clients see it: the acquisition, including any `waitSeconds`, by outcome.
    const started = performance.now();
    const waited = (): number => (performance.now() - started) / 1000;
    try {
      const lock = await c
        .get('satchel')
        .acquireLock(c.req.param('ws'), { ...body, ...sessionOption(c) });
      config.metrics.observeLockWait(waited(), 'acquired');
      return c.json(lock, 201);
    } catch (error) {
      config.metrics.observeLockWait(
        waited(),
        isSatchelError(error, 'LOCKED') ? 'locked' : 'failed',
      );
      throw error;
    }
  });

  app.get('/workspaces/:ws/locks', async (c) => {
    const path = c.req.query('path');
    const items = await c
      .get('satchel')
      .listLocks(c.req.param('ws'), path === undefined ? {} : { path });
    // Core returns live locks only, which are few; the page shape matches every other list.
    return c.json({ items, nextCursor: null });
  });

  app.post('/workspaces/:ws/locks/:id/renew', async (c) => {
    const body = await readJson(c, RenewLockBody, config.maxJsonBytes, { optional: true });
    const lock = await c
      .get('satchel')
      .renewLock(c.req.param('ws'), c.req.param('id'), { ...body, ...sessionOption(c) });
    return c.json(lock);
  });

  app.delete('/workspaces/:ws/locks/:id', async (c) => {
    const satchel = c.get('satchel');
    const ws = c.req.param('ws');
    const id = c.req.param('id');
    if (queryBool(c, 'break') === true) {
      return c.json(await satchel.breakLock(ws, id, sessionOption(c)));
    }
    await satchel.releaseLock(ws, id, sessionOption(c));
    return c.body(null, 204);
  });

  return app;
}
