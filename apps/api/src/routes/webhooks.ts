/** Webhook subscriptions of a workspace (owners): CRUD and the delivery log (docs/webhooks.md). */
import { CreateWebhookSchema, PageOptionsSchema, UpdateWebhookSchema } from '@satchel/core/schemas';
import { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { pageQuery, readJson, validate } from '../input.js';

/** `POST …/webhooks`: unknown fields are refused, so a typo never silently subscribes to more. */
export const CreateWebhookBody = CreateWebhookSchema.strict();

/** `PATCH …/webhooks/:id`: only the fields to change; `path: null` clears the glob. */
export const UpdateWebhookBody = UpdateWebhookSchema.strict();

/**
 * Routes for webhooks, in the style of members and transfers. The signing secret appears once,
 * in the 201 that creates the subscription; listings never carry it. A URL the SSRF guard
 * refuses is 400 INVALID_INPUT with `reason: "ssrf"` and the refused `address`.
 */
export function webhookRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const limit = config.maxJsonBytes;

  app.post('/workspaces/:ws/webhooks', async (c) => {
    const body = await readJson(c, CreateWebhookBody, limit);
    return c.json(await c.get('satchel').createWebhook(c.req.param('ws'), body), 201);
  });
  app.get('/workspaces/:ws/webhooks', async (c) => {
    const items = await c.get('satchel').listWebhooks(c.req.param('ws'));
    return c.json({ items, nextCursor: null });
  });
  app.get('/workspaces/:ws/webhooks/:id', async (c) =>
    c.json(await c.get('satchel').getWebhook(c.req.param('ws'), c.req.param('id'))),
  );
  app.patch('/workspaces/:ws/webhooks/:id', async (c) => {
    const change = await readJson(c, UpdateWebhookBody, limit);
    return c.json(
      await c.get('satchel').updateWebhook(c.req.param('ws'), c.req.param('id'), change),
    );
  });
  app.delete('/workspaces/:ws/webhooks/:id', async (c) => {
    await c.get('satchel').deleteWebhook(c.req.param('ws'), c.req.param('id'));
    return c.body(null, 204);
  });
  app.get('/workspaces/:ws/webhooks/:id/deliveries', async (c) => {
    const page = validate(PageOptionsSchema, pageQuery(c), 'query');
    return c.json(
      await c.get('satchel').listWebhookDeliveries(c.req.param('ws'), c.req.param('id'), page),
    );
  });

  return app;
}
