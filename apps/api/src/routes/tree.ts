/** Tree operations as JSON calls: move, copy, edit, mkdir and batch writes (paths in the body). */

import type { BatchFile } from '@satchel/core';
import { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { BatchBody, CopyBody, EditBody, MkdirBody, MoveBody } from '../bodies.js';
import { versionHeaders } from '../http/conditional.js';
import { mutationOptions, readJson } from '../input.js';

/**
 * Routes under /v1/workspaces/:ws for move, copy, edit, mkdir and batch. Conditions (`ifMatch`) are
 * body fields here, because the URL does not name the file; `Satchel-Session` and
 * `Satchel-Lock-Token` headers override the body's `session` and `lockToken`.
 */
export function treeRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const limit = config.maxJsonBytes;

  app.post('/workspaces/:ws/move', async (c) => {
    const { from, to, ...options } = await readJson(c, MoveBody, limit);
    const info = await c
      .get('satchel')
      .move(c.req.param('ws'), from, to, { ...options, ...mutationOptions(c) });
    return c.json(info, 200, versionHeaders(info));
  });

  app.post('/workspaces/:ws/copy', async (c) => {
    const { from, to, ...options } = await readJson(c, CopyBody, limit);
    const info = await c
      .get('satchel')
      .copy(c.req.param('ws'), from, to, { ...options, ...mutationOptions(c) });
    return c.json(info, 200, versionHeaders(info));
  });

  app.post('/workspaces/:ws/edit', async (c) => {
    const { path, edits, ...options } = await readJson(c, EditBody, limit);
    const result = await c
      .get('satchel')
      .editFile(c.req.param('ws'), path, edits, { ...options, ...mutationOptions(c) });
    // A dry run changed nothing: its info is the unchanged head, still a valid validator.
    return c.json(result, 200, versionHeaders(result.info));
  });

  app.post('/workspaces/:ws/mkdir', async (c) => {
    const { path, ...options } = await readJson(c, MkdirBody, limit);
    const info = await c
      .get('satchel')
      .mkdir(c.req.param('ws'), path, { ...options, ...mutationOptions(c) });
    return c.json(info, 200, versionHeaders(info));
  });

  // All files or none (core's writeFiles); bytes travel as base64.
  app.post('/workspaces/:ws/batch', async (c) => {
    const { files, ...options } = await readJson(c, BatchBody, limit);
    const batch: BatchFile[] = files.map(({ content, encoding, ...file }) => ({
      ...file,
      content: encoding === 'base64' ? new Uint8Array(Buffer.from(content, 'base64')) : content,
    }));
    const items = await c
      .get('satchel')
      .writeFiles(c.req.param('ws'), batch, { ...options, ...mutationOptions(c) });
    return c.json({ items, nextCursor: null });
  });

  return app;
}
