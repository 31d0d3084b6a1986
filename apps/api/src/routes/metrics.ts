/** `GET /metrics`: the app's Prometheus registry in the text exposition format, for admins. */
import { SatchelError } from '@satchel/core';
import { Hono, type MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { ApiMetrics } from '../metrics.js';

/**
 * `/metrics` behind `auth`: UNAUTHENTICATED (401) without a key, FORBIDDEN (403) for a key that
 * is not an admin's (metrics describe every workspace's traffic).
 */
export function metricsRoutes(auth: MiddlewareHandler<ApiEnv>, metrics: ApiMetrics): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/metrics', auth, async (c) => {
    if (!c.get('actor').admin) {
      throw new SatchelError('FORBIDDEN', 'metrics are for admin keys only');
    }
    const text = await metrics.registry.metrics();
    return c.body(text, 200, {
      'Content-Type': metrics.registry.contentType,
      'Cache-Control': 'no-store',
    });
  });
  return app;
}
