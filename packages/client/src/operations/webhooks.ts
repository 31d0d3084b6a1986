/** Operations on webhook subscriptions of a workspace (owners) and their delivery log. */
import { z } from 'zod';
import {
  CreatedWebhookSchema,
  CreateWebhookSchema,
  PageOptionsSchema,
  pageSchema,
  UpdateWebhookSchema,
  WebhookDeliverySchema,
  WebhookSchema,
} from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';

const WEBHOOK_ID_ARG = ['id', z.string()] as const;

export const createWebhook = operation({
  name: 'createWebhook',
  summary:
    "Subscribe a URL to the workspace's changes from now on; the signing secret is in this result only",
  tag: 'webhooks',
  args: [WORKSPACE_ARG],
  options: CreateWebhookSchema,
  optionsRequired: true,
  result: CreatedWebhookSchema,
  access: { workspace: 'webhook.manage' },
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/webhooks', status: 201 },
});

export const listWebhooks = operation({
  name: 'listWebhooks',
  summary: 'Webhook subscriptions of a workspace',
  tag: 'webhooks',
  args: [WORKSPACE_ARG],
  result: z.array(WebhookSchema),
  access: { workspace: 'webhook.read' },
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws/webhooks', list: true },
});

export const getWebhook = operation({
  name: 'getWebhook',
  summary: 'One webhook subscription',
  tag: 'webhooks',
  args: [WORKSPACE_ARG, WEBHOOK_ID_ARG],
  result: WebhookSchema,
  access: { workspace: 'webhook.read' },
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws/webhooks/:id' },
});

export const updateWebhook = operation({
  name: 'updateWebhook',
  summary: 'Change a subscription; enabled: true resumes a disabled one from now on',
  tag: 'webhooks',
  args: [WORKSPACE_ARG, WEBHOOK_ID_ARG],
  options: UpdateWebhookSchema,
  optionsRequired: true,
  result: WebhookSchema,
  access: { workspace: 'webhook.manage' },
  mutates: true,
  http: { method: 'PATCH', path: '/workspaces/:ws/webhooks/:id' },
});

export const deleteWebhook = operation({
  name: 'deleteWebhook',
  summary: 'Delete a subscription and its delivery log',
  tag: 'webhooks',
  args: [WORKSPACE_ARG, WEBHOOK_ID_ARG],
  access: { workspace: 'webhook.manage' },
  mutates: true,
  http: { method: 'DELETE', path: '/workspaces/:ws/webhooks/:id', status: 204 },
});

export const listWebhookDeliveries = operation({
  name: 'listWebhookDeliveries',
  summary: 'The delivery log of a subscription, newest event first, each with its attempts',
  tag: 'webhooks',
  args: [WORKSPACE_ARG, WEBHOOK_ID_ARG],
  options: PageOptionsSchema,
  result: pageSchema(WebhookDeliverySchema),
  access: { workspace: 'webhook.read' },
  mutates: false,
  http: {
    method: 'GET',
    path: '/workspaces/:ws/webhooks/:id/deliveries',
    query: { cursor: 'string', limit: 'integer' },
  },
});
