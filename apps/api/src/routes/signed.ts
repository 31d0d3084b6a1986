/**
 * The signed transfer URLs themselves (docs/api.md, "Signed transfer URLs"): `PUT /signed/<token>`
 * writes the body (`curl -T file URL`), `GET /signed/<token>` reads the file (`curl -o file
 * URL`), with no API key: the token is the authority, checked by the engine, which then acts
 * as the key that signed it. Downloads are always attachments, never rendered by a browser.
 */
import { baseName, isSatchelError, type SatchelEngine } from '@satchel/core';
import { create as contentDisposition } from 'content-disposition';
import { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { downloadBody, uploadBody } from '../http/body.js';
import { versionHeaders } from '../http/conditional.js';
import { readHeaders } from './files.js';

export function signedRoutes(engine: SatchelEngine, config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  // A URL that leaks through a Referer or a proxy log is still single-use and short-lived;
  // answers are never cached by anyone in between.
  app.use('/signed/*', async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    // A refused URL (forged, expired, used, its signer revoked) is audited at the server level
    // like a refused key; the token itself is never recorded.
    if (isSatchelError(c.error, 'UNAUTHENTICATED')) {
      engine.auditRefusal({
        source: 'signed-url',
        code: 'UNAUTHENTICATED',
        action: `${c.req.method} /signed`,
      });
    }
  });

  app.put('/signed/:token', async (c) => {
    const info = await engine.uploadBySignedUrl(
      c.req.param('token'),
      uploadBody(c, config.maxBodyBytes),
    );
    return c.json(info, 200, versionHeaders(info));
  });

  // HEAD is answered by this route too; it consumes a single-use URL all the same.
  app.get('/signed/:token', async (c) => {
    const file = await engine.downloadBySignedUrl(c.req.param('token'));
    const headers = readHeaders(file.info, false);
    headers['Content-Disposition'] = contentDisposition(baseName(file.info.path), {
      type: 'attachment',
    });
    headers['Cache-Control'] = 'no-store';
    return c.body(downloadBody(file.body), 200, headers);
  });

  return app;
}
