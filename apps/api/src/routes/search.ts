/**
 * Search and workspace settings: grep (`GET …/grep`), ranked passages (`GET …/search`), ask
 * (`POST …/ask`), the index's status and rebuild (`GET …/search/status`, `POST
 * …/search/reindex`), and `PATCH /v1/workspaces/:ws {indexing}`. Query strings are turned into
 * core's options and validated by core (INVALID_INPUT naming the field).
 */
import { SatchelError } from '@satchel/core';
import { AskOptionsSchema, UpdateWorkspaceSchema } from '@satchel/core/schemas';
import { Hono } from 'hono';
import { z } from 'zod';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { etag } from '../http/conditional.js';
import { queryBool, queryInt, readJson, sessionOption } from '../input.js';

/** `POST …/ask`: the question and core's options. */
export const AskBody = AskOptionsSchema.extend({ question: z.string() }).strict();

/** `PATCH /v1/workspaces/:ws`: the settings to change. */
export const UpdateWorkspaceBody = UpdateWorkspaceSchema;

function required(value: string | undefined, name: string): string {
  if (value === undefined) {
    throw new SatchelError('INVALID_INPUT', `invalid ${name}: the query parameter is required`, {
      field: name,
    });
  }
  return value;
}

function defined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Routes under /v1/workspaces/:ws for search, and the workspace's settings. */
export function searchRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.patch('/workspaces/:ws', async (c) => {
    const body = await readJson(c, UpdateWorkspaceBody, config.maxJsonBytes);
    const info = await c
      .get('satchel')
      .updateWorkspace(c.req.param('ws'), { ...body, ...sessionOption(c) });
    return c.json(info, 200, { ETag: etag(info.seq) });
  });

  app.get('/workspaces/:ws/grep', async (c) => {
    const pattern = required(c.req.query('pattern'), 'pattern');
    const options = defined({
      path: c.req.query('path'),
      glob: c.req.query('glob'),
      regex: queryBool(c, 'regex'),
      caseSensitive: queryBool(c, 'caseSensitive'),
      limit: queryInt(c, 'limit'),
      timeoutMs: queryInt(c, 'timeoutMs'),
      maxFiles: queryInt(c, 'maxFiles'),
      maxBytes: queryInt(c, 'maxBytes'),
    });
    const result = await c
      .get('satchel')
      .grep(c.req.param('ws'), pattern, { ...options, ...sessionOption(c) });
    return c.json(result);
  });

  app.get('/workspaces/:ws/search', async (c) => {
    const q = required(c.req.query('q'), 'q');
    const options = defined({ path: c.req.query('path'), limit: queryInt(c, 'limit') });
    const result = await c
      .get('satchel')
      .search(c.req.param('ws'), q, { ...options, ...sessionOption(c) });
    return c.json(result);
  });

  app.post('/workspaces/:ws/ask', async (c) => {
    const { question, ...options } = await readJson(c, AskBody, config.maxJsonBytes);
    const result = await c
      .get('satchel')
      .ask(c.req.param('ws'), question, { ...options, ...sessionOption(c) });
    return c.json(result);
  });

  app.get('/workspaces/:ws/search/status', async (c) => {
    return c.json(await c.get('satchel').searchStatus(c.req.param('ws')));
  });

  app.post('/workspaces/:ws/search/reindex', async (c) => {
    return c.json(await c.get('satchel').reindex(c.req.param('ws'), sessionOption(c)));
  });

  return app;
}
