/** Workspaces: create, list (only those the caller may see), inspect, delete. */
import { PageOptionsSchema } from '@satchel/core/schemas';
import { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { CreateWorkspaceBody } from '../bodies.js';
import { etag } from '../http/conditional.js';
import { pageQuery, readJson, sessionOption, validate } from '../input.js';

/** Routes /v1/workspaces and /v1/workspaces/:ws. A workspace's ETag is its newest seq. */
export function workspaceRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post('/workspaces', async (c) => {
    const { name, ...options } = await readJson(c, CreateWorkspaceBody, config.maxJsonBytes);
    const workspace = await c
      .get('satchel')
      .createWorkspace(name, { ...options, ...sessionOption(c) });
    return c.json(workspace, 201, {
      Location: `/v1/workspaces/${workspace.name}`,
      ETag: etag(workspace.seq),
    });
  });

  app.get('/workspaces', async (c) => {
    const page = validate(PageOptionsSchema, pageQuery(c), 'query');
    return c.json(await c.get('satchel').listWorkspaces(page));
  });

  app.get('/workspaces/:ws', async (c) => {
    const info = await c.get('satchel').getWorkspace(c.req.param('ws'));
    return c.json(info, 200, { ETag: etag(info.seq) });
  });

  app.delete('/workspaces/:ws', async (c) => {
    await c.get('satchel').deleteWorkspace(c.req.param('ws'), sessionOption(c));
    return c.body(null, 204);
  });

  return app;
}
