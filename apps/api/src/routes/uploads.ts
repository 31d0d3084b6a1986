/**
 * Resumable uploads over HTTP (docs/api.md, "Large files"), tus-style headers on our own
 * session resource: `GET` (and `HEAD`) of `…/uploads/:id` tell `Upload-Offset` and
 * `Upload-Length`; `PATCH` with `Upload-Offset` sends the bytes from there. The JSON routes
 * (create, list, complete, cancel) are derived from the operation table.
 */
import type { Upload } from '@satchel/core';
import { SatchelError } from '@satchel/core';
import { type Context, Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { checkDeclaredLength } from '../input.js';
import { HttpError } from '../problem.js';

type Ctx = Context<ApiEnv>;

function offsetHeaders(upload: Upload): Record<string, string> {
  return {
    'Upload-Offset': String(upload.offset),
    'Upload-Length': String(upload.size),
    'Upload-Expires': new Date(upload.expiresAt).toUTCString(),
    'Cache-Control': 'no-store',
  };
}

function offsetOf(c: Ctx): number {
  const raw = c.req.header('Upload-Offset');
  if (raw === undefined || !/^\d{1,16}$/.test(raw.trim())) {
    throw new HttpError(
      'INVALID_INPUT',
      'Upload-Offset must be the byte offset the body starts at',
      {
        data: { field: 'Upload-Offset' },
      },
    );
  }
  return Number(raw.trim());
}

/**
 * The request body, ending normally when the client goes away mid-body: the bytes that did
 * arrive are a prefix of the part, and keeping them is what lets the client resume from there
 * (tus does the same). Limits (TOO_LARGE) still fail the part.
 */
async function* untilCut(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    for await (const piece of body) yield piece;
  } catch (error) {
    if (error instanceof SatchelError) throw error;
    // The connection was cut: what arrived is kept, and the client asks for the offset.
  }
}

/** Routes under /v1/workspaces/:ws/uploads/:id that carry bytes or headers. */
export function uploadRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  // HEAD is answered by this GET route, without the body.
  app.get('/workspaces/:ws/uploads/:id', async (c) => {
    const upload = await c.get('satchel').getUpload(c.req.param('ws'), c.req.param('id'));
    return c.json(upload, 200, offsetHeaders(upload));
  });

  app.patch('/workspaces/:ws/uploads/:id', async (c) => {
    const offset = offsetOf(c);
    checkDeclaredLength(c, config.maxBodyBytes);
    const upload = await c
      .get('satchel')
      .appendUpload(c.req.param('ws'), c.req.param('id'), offset, untilCut(c.get('body').stream()));
    return c.json(upload, 200, offsetHeaders(upload));
  });

  return app;
}
