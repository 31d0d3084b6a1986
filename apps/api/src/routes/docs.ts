/**
 * `GET /openapi.json` and the API reference at `/docs`: swagger-ui, with its scripts and styles
 * served from our own node_modules so the page works with no internet access.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SatchelError } from '@satchel/core';
import { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import { openApiDocument } from '../openapi/document.js';

const require = createRequire(import.meta.url);
const SWAGGER_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_VERSION = (require('swagger-ui-dist/package.json') as { version: string }).version;

/** Our swagger-ui start-up: no inline script, so the page's CSP can forbid inline scripts. */
const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The default sends the document to an online validator: none, this page stays offline.
    validatorUrl: null,
    tryItOutEnabled: true,
    persistAuthorization: false,
  });
});
`;

/** The files the page may load, and their media types; nothing else is served from the package. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'init.js': 'text/javascript; charset=utf-8',
};

/** `?v=` makes each asset URL name one version's bytes, so browsers may cache it for good. */
const asset = (file: string): string => `/docs/assets/${file}?v=${SWAGGER_VERSION}`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Satchel API reference</title>
    <link rel="stylesheet" href="${asset('swagger-ui.css')}">
    <link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${asset('swagger-ui-bundle.js')}"></script>
    <script src="${asset('init.js')}"></script>
  </body>
</html>
`;

// swagger-ui sets inline styles and shows its logo as a data: URL; everything else is ours.
const PAGE_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
  "script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

const cache = new Map<string, Promise<Uint8Array<ArrayBuffer> | string>>();

function load(file: string): Promise<Uint8Array<ArrayBuffer> | string> {
  let content = cache.get(file);
  if (content === undefined) {
    content =
      file === 'init.js'
        ? Promise.resolve(INIT_JS)
        : readFile(join(SWAGGER_DIR, file)).then((bytes) => new Uint8Array(bytes));
    // A failed read is not remembered: the next request tries again.
    content.catch(() => cache.delete(file));
    cache.set(file, content);
  }
  return content;
}

/** Routes /openapi.json, /docs and /docs/assets/:file; all public (no key needed). */
export function docsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get('/openapi.json', (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.json(openApiDocument());
  });

  app.get('/docs', (c) =>
    c.html(PAGE, 200, { 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-cache' }),
  );

  app.get('/docs/assets/:file', async (c) => {
    const file = c.req.param('file');
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (type === undefined) {
      throw new SatchelError('NOT_FOUND', `no docs asset named ${JSON.stringify(file)}`, { file });
    }
    const headers = {
      'Content-Type': type,
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    };
    const content = await load(file);
    return typeof content === 'string'
      ? c.body(content, 200, headers)
      : c.body(content, 200, headers);
  });

  return app;
}
