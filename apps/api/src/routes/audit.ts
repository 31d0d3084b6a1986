/** The audit log: entries of one workspace (owners) or of all (admins), and chain verification. */
import { AuditQuerySchema } from '@satchel/core/schemas';
import { type Context, Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { queryInt, validate } from '../input.js';

/**
 * `?after=IDX&limit=`: entries after index IDX, oldest first. `nextCursor` is the last index
 * returned, so it is passed back as `after` (or as `cursor`, like every other list).
 */
function auditQuery(c: Context<ApiEnv>, workspace: string | undefined) {
  const after = queryInt(c, 'after') ?? queryInt(c, 'cursor');
  return validate(
    AuditQuerySchema,
    {
      ...(workspace === undefined ? {} : { workspace }),
      ...(after === undefined ? {} : { cursor: String(after) }),
      limit: queryInt(c, 'limit'),
    },
    'query',
  );
}

/** Routes /v1/workspaces/:ws/audit, /v1/audit and /v1/audit/verify. */
export function auditRoutes(_config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/workspaces/:ws/audit', async (c) =>
    c.json(await c.get('satchel').listAudit(auditQuery(c, c.req.param('ws')))),
  );
  app.get('/audit', async (c) =>
    c.json(await c.get('satchel').listAudit(auditQuery(c, undefined))),
  );
  app.get('/audit/verify', async (c) => c.json(await c.get('satchel').verifyAudit()));
  return app;
}
