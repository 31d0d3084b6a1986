/** Batch writes: many files in one JSON body, all of them or none. */
import type { BatchFile } from '@satchel/core';
import { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { BatchBody } from '../bodies.js';
import { mutationOptions, readJson } from '../input.js';

/**
 * `POST /v1/workspaces/:ws/batch`, written by hand because bytes travel as base64 and are
 * decoded here. `Satchel-Session` and `Satchel-Lock-Token` headers override the body's.
 */
export function treeRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const limit = config.maxJsonBytes;

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
