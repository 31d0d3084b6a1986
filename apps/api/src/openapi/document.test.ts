/** The OpenAPI document: valid 3.1, and exactly the app's routes (it cannot drift). */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../test-support/harness.js';
import { openApiDocument } from './document.js';
import { openApiPath } from './spec.js';

let h: Harness;
beforeAll(async () => {
  // With an MCP handler, so that `/mcp` is among the app's routes.
  h = await createHarness({ mcp: async () => new Response(null, { status: 204 }) });
});
afterAll(async () => {
  await h.close();
});

type Paths = Record<string, Record<string, { security?: unknown[] }>>;

/** `GET /v1/x` for every route the app answers, middleware (wildcard ALL) left out. */
function appOperations(): Set<string> {
  const ops = new Set<string>();
  for (const route of h.app.routes) {
    if (route.method === 'ALL' && route.path.endsWith('*')) continue;
    // `app.all('/mcp')`: the document names the methods MCP clients use.
    const methods = route.method === 'ALL' ? ['GET', 'POST', 'DELETE'] : [route.method];
    for (const method of methods) ops.add(`${method} ${openApiPath(route.path)}`);
  }
  return ops;
}

function documentOperations(): Set<string> {
  const ops = new Set<string>();
  for (const [path, item] of Object.entries(openApiDocument().paths as Paths)) {
    for (const method of Object.keys(item)) ops.add(`${method.toUpperCase()} ${path}`);
  }
  return ops;
}

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(openApiDocument());
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(openApiDocument().openapi).toBe('3.1.0');
  });

  it('names every route of the app, and no route the app does not have', () => {
    const app = appOperations();
    const doc = documentOperations();
    // Hono answers HEAD with the GET route; the document may spell HEAD out.
    const missing = [...app].filter((op) => !doc.has(op));
    const extra = [...doc].filter(
      (op) => !app.has(op) && !(op.startsWith('HEAD ') && app.has(op.replace('HEAD', 'GET'))),
    );
    expect(missing).toEqual([]);
    expect(extra).toEqual([]);
  });

  it('declares bearer security, problem responses with the error codes, and shared schemas', () => {
    const doc = openApiDocument();
    const paths = doc.paths as Paths;
    const components = doc.components as {
      securitySchemes: Record<string, unknown>;
      schemas: Record<string, { properties?: Record<string, { enum?: string[] }> }>;
    };
    expect(components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(components.schemas.Problem?.properties?.code?.enum).toContain('RATE_LIMITED');
    expect(components.schemas.FileInfo).toBeDefined();
    expect(paths['/healthz']?.get?.security).toEqual([]);
    expect(paths['/v1/workspaces/{ws}/files/{path}']?.put?.security).toEqual([{ bearer: [] }]);
    const put = JSON.stringify(paths['/v1/workspaces/{ws}/files/{path}']?.put);
    expect(put).toContain('#/components/schemas/FileInfo');
    expect(put).toContain('application/problem+json');
  });

  it('is served at /openapi.json without a key', async () => {
    const res = await h.request('GET', '/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(openApiDocument());
  });
});

describe('/docs', () => {
  it('serves a page that loads only local assets and the local document', async () => {
    const res = await h.request('GET', '/docs', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
    expect(res.headers.get('Content-Security-Policy')).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/http|\/\/cdn|\/\/unpkg/);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) expect(asset).toMatch(/^\/docs\/assets\//);

    const init = await (await h.request('GET', '/docs/assets/init.js', { key: null })).text();
    expect(init).toContain("'/openapi.json'");
    expect(init).toContain('validatorUrl: null');
    expect(init).not.toMatch(/https?:/);
  });

  it('serves the swagger-ui assets with their types and long caching', async () => {
    const expected: Record<string, RegExp> = {
      'swagger-ui-bundle.js': /^text\/javascript/,
      'swagger-ui.css': /^text\/css/,
      'favicon-32x32.png': /^image\/png/,
    };
    for (const [file, type] of Object.entries(expected)) {
      const res = await h.request('GET', `/docs/assets/${file}?v=1`, { key: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('Content-Type')).toMatch(type);
      expect(res.headers.get('Cache-Control')).toContain('immutable');
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    expect((await h.request('GET', '/docs/assets/package.json', { key: null })).status).toBe(404);
    expect((await h.request('GET', '/docs/assets/..%2Fpackage.json', { key: null })).status).toBe(
      404,
    );
  });
});
