/** The route table, part three: webhook subscriptions and their delivery log. */
import { PAGE_PARAMS } from './operations-files.js';
import type { OperationSpec } from './spec.js';

export const WEBHOOK_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'POST',
    path: '/v1/workspaces/:ws/webhooks',
    tag: 'webhooks',
    summary: 'Subscribe a URL to changes (owners; the signing secret is shown once)',
    body: { json: 'CreateWebhookBody' },
    responses: {
      201: { description: 'the webhook and secret', content: [{ json: 'CreatedWebhook' }] },
    },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/:ws/webhooks',
    tag: 'webhooks',
    summary: 'List webhooks (owners)',
    responses: { 200: { description: 'webhooks', content: [{ json: 'WebhookPage' }] } },
    errors: [403, 404],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/:ws/webhooks/:id',
    tag: 'webhooks',
    summary: 'A webhook (owners)',
    responses: { 200: { description: 'the webhook', content: [{ json: 'Webhook' }] } },
    errors: [403, 404],
  },
  {
    method: 'PATCH',
    path: '/v1/workspaces/:ws/webhooks/:id',
    tag: 'webhooks',
    summary: 'Change, enable or disable a webhook (owners)',
    body: { json: 'UpdateWebhookBody' },
    responses: { 200: { description: 'the webhook', content: [{ json: 'Webhook' }] } },
    errors: [400, 403, 404],
  },
  {
    method: 'DELETE',
    path: '/v1/workspaces/:ws/webhooks/:id',
    tag: 'webhooks',
    summary: 'Delete a webhook (owners)',
    responses: { 204: { description: 'deleted' } },
    errors: [403, 404],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/:ws/webhooks/:id/deliveries',
    tag: 'webhooks',
    summary: 'The delivery log of a webhook, newest first (owners)',
    params: PAGE_PARAMS,
    responses: { 200: { description: 'a page', content: [{ json: 'WebhookDeliveryPage' }] } },
    errors: [400, 403, 404],
  },
];
