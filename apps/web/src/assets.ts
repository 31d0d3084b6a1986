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
  // Through the package's name, not `../assets`: the same path from dist/, from src/ and from the
  // CLI's bundle, whose modules sit in another package's dist/.
  const own = (file: string): string => require.resolve(`@satchel/web/assets/${file}`);
  return {
    'htmx.min.js': {
      type: 'text/javascript; charset=utf-8',
      body: readFileSync(require.resolve('htmx.org/dist/htmx.min.js')),
    },
    'upload.js': {
      type: 'text/javascript; charset=utf-8',
      body: readFileSync(own('upload.js')),
    },
    'files.css': {
      type: 'text/css; charset=utf-8',
      body: readFileSync(own('files.css')),
    },
    'comments.js': {
      type: 'text/javascript; charset=utf-8',
      body: readFileSync(own('comments.js')),
    },
    'app.css': {
      type: 'text/css; charset=utf-8',
      body: readFileSync(own('app.css')),
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
