/** Schemas of webhook subscriptions, their deliveries and the payload they send (docs/webhooks.md). */
import { z } from 'zod';
import { ChangeEventSchema, SeqSchema, VersionOpSchema } from './files.js';

export const WebhookUrlSchema = z
  .string()
  .min(1)
  .max(2048)
  .describe(
    'http(s) URL the events are POSTed to; no credentials; must not resolve to a loopback, ' +
      'private, link-local or metadata address unless the server allows it',
  );

/** What a subscription can receive: a change type (`file.<op>` events) or a comment event. */
export const WebhookEventSchema = z.enum([
  ...VersionOpSchema.options,
  'comment.created',
  'comment.resolved',
]);
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

export const WebhookEventsSchema = z
  .array(WebhookEventSchema)
  .min(1)
  .max(WebhookEventSchema.options.length)
  .describe(
    'change types to send (write, append, edit, mkdir, delete, move, copy, restore) and ' +
      'comment.created, comment.resolved; default all',
  );

export const WebhookGlobSchema = z
  .string()
  .min(1)
  .max(4096)
  .describe('only changes whose path matches this glob, e.g. "/reports/**" or "**/*.md"');

export const CreateWebhookSchema = z.object({
  url: WebhookUrlSchema,
  events: WebhookEventsSchema.optional(),
  path: WebhookGlobSchema.optional(),
  description: z.string().max(500).optional().describe('what the subscription is for'),
});
export type CreateWebhook = z.infer<typeof CreateWebhookSchema>;

export const UpdateWebhookSchema = z.object({
  url: WebhookUrlSchema.optional(),
  events: WebhookEventsSchema.optional(),
  path: WebhookGlobSchema.nullable().optional().describe('a glob, or null for every path'),
  description: z.string().max(500).nullable().optional(),
  enabled: z
    .boolean()
    .optional()
    .describe('false pauses delivery; true re-enables (also after a 410), from the current seq'),
});
export type UpdateWebhook = z.infer<typeof UpdateWebhookSchema>;

export const WebhookSchema = z.object({
  id: z.string(),
  workspace: z.string(),
  url: z.string(),
  events: z.array(WebhookEventSchema),
  path: z.string().nullable().describe('path glob, null for every path'),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabledReason: z
    .string()
    .nullable()
    .describe('why delivery stopped, e.g. the endpoint answered 410 Gone'),
  createdAt: z.string().describe('ISO 8601'),
  createdBy: z.string(),
});
export type Webhook = z.infer<typeof WebhookSchema>;

export const CreatedWebhookSchema = WebhookSchema.extend({
  secret: z
    .string()
    .describe('signing secret (whsec_…): shown this once; verify deliveries with it'),
});
export type CreatedWebhook = z.infer<typeof CreatedWebhookSchema>;

export const WebhookDeliveryStatusSchema = z
  .enum(['pending', 'delivered', 'failed', 'dead'])
  .describe(
    'pending: not attempted yet; failed: the last attempt failed and another is scheduled ' +
      '(nextAttemptAt); delivered: a 2xx answer; dead: no more attempts (retries exhausted, ' +
      'the endpoint answered 410, or the subscription was disabled)',
  );
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatusSchema>;

export const WebhookAttemptSchema = z.object({
  at: z.string().describe('ISO 8601'),
  status: z.number().int().nullable().describe('HTTP status, null when no answer came'),
  error: z.string().nullable().describe('why it failed; null for a 2xx'),
  durationMs: z.number().int().nonnegative(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttemptSchema>;

export const WebhookDeliverySchema = z.object({
  id: z.string().describe('the webhook-id header: the same on every retry'),
  webhookId: z.string(),
  eventSeq: SeqSchema,
  eventType: z.string().describe('file.<op>, comment.created or comment.resolved'),
  path: z.string(),
  status: WebhookDeliveryStatusSchema,
  attempts: z.number().int().nonnegative(),
  nextAttemptAt: z.string().nullable(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
  log: z.array(WebhookAttemptSchema).describe('every attempt, oldest first'),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const WebhookPayloadSchema = z.object({
  type: z.string().describe('file.<op>, e.g. file.write'),
  timestamp: z.string().describe('ISO 8601 time of the change'),
  data: ChangeEventSchema.extend({ workspace: z.string() }),
});
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;
