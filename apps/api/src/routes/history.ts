/** The diff between versions: JSON, or the bare unified diff for clients that ask for it. */
import { SatchelError } from '@satchel/core';
import { DiffOptionsSchema } from '@satchel/core/schemas';
import { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { queryInt, sessionOption, validate } from '../input.js';

/** Media types that ask `GET /diff` for the bare unified diff instead of JSON. */
const DIFF_TYPES = ['text/x-diff', 'text/x-patch', 'text/plain'];

/** `GET /v1/workspaces/:ws/diff`: content negotiation is why it is written by hand. */
export function historyRoutes(_config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

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

  return app;
}
