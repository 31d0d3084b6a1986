/** History: the versions of a path, diffs between versions, and restoring an old version. */
import { SatchelError } from '@satchel/core';
import { DiffOptionsSchema, PageOptionsSchema } from '@satchel/core/schemas';
import { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { RestoreBody } from '../bodies.js';
import { versionHeaders } from '../http/conditional.js';
import {
  mutationOptions,
  pageQuery,
  queryInt,
  readJson,
  sessionOption,
  urlPath,
  validate,
} from '../input.js';

/** Segments before the file path: /v1/workspaces/:ws/versions/<path>. */
const PATH_OFFSET = 4;

/** Media types that ask `GET /diff` for the bare unified diff instead of JSON. */
const DIFF_TYPES = ['text/x-diff', 'text/x-patch', 'text/plain'];

/** Routes under /v1/workspaces/:ws: versions, diff, restore. */
export function historyRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get('/workspaces/:ws/versions/*', async (c) => {
    const page = validate(PageOptionsSchema, pageQuery(c), 'query');
    const path = urlPath(c, PATH_OFFSET);
    return c.json(await c.get('satchel').listVersions(c.req.param('ws'), path, page));
  });

  app.get('/workspaces/:ws/diff', async (c) => {
    const options = validate(
      DiffOptionsSchema,
      {
        ...sessionOption(c),
        from: queryInt(c, 'from'),
        to: queryInt(c, 'to'),
        context: queryInt(c, 'context'),
      },
      'query',
    );
    const path = c.req.query('path');
    if (path === undefined) {
      throw new SatchelError('INVALID_INPUT', 'invalid path: ?path= is required', {
        field: 'path',
      });
    }
    const result = await c.get('satchel').diff(c.req.param('ws'), path, options);
    const accept = c.req.header('Accept') ?? '';
    if (DIFF_TYPES.some((type) => accept.includes(type))) {
      return c.body(result.diff, 200, { 'Content-Type': 'text/x-diff; charset=utf-8' });
    }
    return c.json(result);
  });

  app.post('/workspaces/:ws/restore', async (c) => {
    const { path, seq, ...options } = await readJson(c, RestoreBody, config.maxJsonBytes);
    const info = await c
      .get('satchel')
      .restore(c.req.param('ws'), path, seq, { ...options, ...mutationOptions(c) });
    return c.json(info, 200, versionHeaders(info));
  });

  return app;
}
