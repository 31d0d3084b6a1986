/** Locks: release and break, which share one route (the rest derive from the operation table). */
import { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { queryBool, sessionOption } from '../input.js';

/**
 * `DELETE …/locks/:id` releases your own lock; `?break=true` releases anyone's (owners only,
 * audited) and returns the broken lock. Two operations on one route, so it is written by hand.
 */
export function lockRoutes(_config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

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
