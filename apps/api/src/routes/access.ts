/** Access: who am I, principals, API keys, workspace members, ownership transfers. */
import { PageOptionsSchema } from '@satchel/core/schemas';
import { Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import {
  AcceptTransferBody,
  CreateKeyBody,
  CreatePrincipalBody,
  OfferTransferBody,
  SetMemberBody,
} from '../bodies.js';
import { pageQuery, queryBool, readJson, sessionOption, validate } from '../input.js';

/**
 * Routes for access control. Secrets (a new key, a transfer's claim code) appear once, in the
 * response that creates them; a claim code is accepted in a body, never in a URL, so it does
 * not end up in access logs. Lists that core returns whole are sent as one page.
 */
export function accessRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const limit = config.maxJsonBytes;

  app.get('/whoami', async (c) => c.json(await c.get('satchel').whoami()));

  app.post('/principals', async (c) => {
    const body = await readJson(c, CreatePrincipalBody, limit);
    return c.json(await c.get('satchel').createPrincipal(body), 201);
  });
  app.get('/principals', async (c) => {
    const page = validate(PageOptionsSchema, pageQuery(c), 'query');
    return c.json(await c.get('satchel').listPrincipals(page));
  });

  app.post('/keys', async (c) => {
    const body = await readJson(c, CreateKeyBody, limit, { optional: true });
    return c.json(await c.get('satchel').createKey(body), 201);
  });
  app.get('/keys', async (c) => {
    const all = queryBool(c, 'all');
    const items = await c.get('satchel').listKeys(all === undefined ? {} : { all });
    return c.json({ items, nextCursor: null });
  });
  app.delete('/keys/:id', async (c) => c.json(await c.get('satchel').revokeKey(c.req.param('id'))));

  app.get('/workspaces/:ws/members', async (c) => {
    const items = await c.get('satchel').listMembers(c.req.param('ws'));
    return c.json({ items, nextCursor: null });
  });
  app.put('/workspaces/:ws/members/:principal', async (c) => {
    const { role } = await readJson(c, SetMemberBody, limit);
    const member = await c
      .get('satchel')
      .setMember(c.req.param('ws'), c.req.param('principal'), role, sessionOption(c));
    return c.json(member);
  });
  app.delete('/workspaces/:ws/members/:principal', async (c) => {
    await c
      .get('satchel')
      .removeMember(c.req.param('ws'), c.req.param('principal'), sessionOption(c));
    return c.body(null, 204);
  });

  app.post('/workspaces/:ws/transfers', async (c) => {
    const body = await readJson(c, OfferTransferBody, limit, { optional: true });
    const offer = await c
      .get('satchel')
      .offerTransfer(c.req.param('ws'), { ...body, ...sessionOption(c) });
    return c.json(offer, 201);
  });
  app.get('/workspaces/:ws/transfers', async (c) => {
    const items = await c.get('satchel').listTransfers(c.req.param('ws'));
    return c.json({ items, nextCursor: null });
  });
  app.delete('/workspaces/:ws/transfers/:id', async (c) =>
    c.json(
      await c.get('satchel').cancelTransfer(c.req.param('ws'), c.req.param('id'), sessionOption(c)),
    ),
  );
  app.post('/transfers/accept', async (c) => {
    const { code } = await readJson(c, AcceptTransferBody, limit);
    return c.json(await c.get('satchel').acceptTransfer(code, sessionOption(c)));
  });

  return app;
}
