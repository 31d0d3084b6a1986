/** The app's static files, all served by Satchel itself (no CDN): htmx and our stylesheet. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Hono } from 'hono';
import type { WebEnv } from './web-env.js';

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

function load(): Record<string, Asset> {
  const require = createRequire(import.meta.url);
  return {
    'htmx.min.js': {
      type: 'text/javascript; charset=utf-8',
      body: readFileSync(require.resolve('htmx.org/dist/htmx.min.js')),
    },
    'comments.js': {
      type: 'text/javascript; charset=utf-8',
      body: readFileSync(new URL('../assets/comments.js', import.meta.url)),
    },
    'upload.js': {
      type: 'text/javascript; charset=utf-8',
      body: readFileSync(new URL('../assets/upload.js', import.meta.url)),
    },
    'files.css': {
      type: 'text/css; charset=utf-8',
      body: readFileSync(new URL('../assets/files.css', import.meta.url)),
    },
    'app.css': {
      type: 'text/css; charset=utf-8',
      // Beside src/ and dist/ alike: the package ships the folder.
      body: readFileSync(new URL('../assets/app.css', import.meta.url)),
    },
  };
}

/** `GET /assets/<name>`: read once at start, cached by browsers for an hour. */
export function assetRoutes(): Hono<WebEnv> {
  const assets = load();
  const app = new Hono<WebEnv>();
  app.get('/assets/:name', (c) => {
    const asset = assets[c.req.param('name')];
    if (asset === undefined) return c.notFound();
    return c.body(new Uint8Array(asset.body), 200, {
      'Content-Type': asset.type,
      'Cache-Control': 'public, max-age=3600',
    });
  });
  return app;
}
