/**
 * Batch transfer (issue 19): `POST …/batch/upload` takes a tar stream of files and answers one
 * JSON line per file once every file is committed; `POST …/batch/download` takes a list of files
 * and answers a tar stream of them. Written by hand because the bodies are byte streams; the
 * archive format is in @satchel/client's transfer/batch-tar.ts.
 */
import { Readable } from 'node:stream';
import { extractUpload, packDownload, TAR_MEDIA_TYPE } from '@satchel/core';
import { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { DownloadFilesBody } from '../bodies.js';
import { mutationOptions, readJson, sessionOption } from '../input.js';

const NDJSON = 'application/x-ndjson';

async function* ndjson(lines: readonly unknown[]): AsyncGenerator<string> {
  for (const line of lines) yield `${JSON.stringify(line)}\n`;
  // The end marker: an answer cut short (the server went away) is never taken for a whole one.
  yield '{"end":true}\n';
}

export function batchRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post('/workspaces/:ws/batch/upload', async (c) => {
    const message = c.req.query('message');
    const result = await c
      .get('satchel')
      .uploadFiles(c.req.param('ws'), extractUpload(c.get('body').stream()), {
        ...mutationOptions(c),
        ...(message === undefined ? {} : { message }),
      });
    // Bytes, not strings: over app.request the client reads the chunks as they are.
    const lines = Readable.from(ndjson(result.items), { objectMode: false });
    const stream = Readable.toWeb(lines) as ReadableStream;
    return c.body(stream, 200, { 'Content-Type': NDJSON });
  });

  app.post('/workspaces/:ws/batch/download', async (c) => {
    const { files, session } = await readJson(c, DownloadFilesBody, config.maxJsonBytes);
    const items = await c.get('satchel').downloadFiles(c.req.param('ws'), files, {
      ...(session === undefined ? {} : { session }),
      ...sessionOption(c),
    });
    const tar = Readable.from(packDownload(items), { objectMode: false });
    return c.body(Readable.toWeb(tar) as ReadableStream, 200, { 'Content-Type': TAR_MEDIA_TYPE });
  });

  return app;
}
