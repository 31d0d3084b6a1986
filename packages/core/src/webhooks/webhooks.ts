/**
 * Webhook subscriptions of a workspace: create (the secret is returned once and stored sealed),
 * list, get, update (re-enabling is how a subscription recovers after a 410), delete, and the
 * delivery log. Authorisation and audit are the caller's (engine/local-satchel.ts).
 */
import { randomBytes } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import {
  type CreatedWebhook,
  type CreateWebhook,
  CreateWebhookSchema,
  type Page,
  type PageOptions,
  PageOptionsSchema,
  type UpdateWebhook,
  UpdateWebhookSchema,
  type Webhook,
  type WebhookDelivery,
  type WebhookEvent,
  WebhookEventSchema,
} from '@satchel/client/schemas/index.js';
import picomatch from 'picomatch';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { decodeCursor, encodeCursor } from '../kernel/cursors.js';
import { iso } from '../kernel/records.js';
import type { MetadataQueries } from '../store/metadata/metadata-store.js';
import type {
  AttemptRecord,
  DeliveryRecord,
  WebhookChange,
  WebhookRecord,
} from '../store/metadata/records.js';
import { generateWebhookSecret, type SecretBox } from './secret-box.js';
import { type AllowList, checkWebhookUrl, type Resolver, resolveAll } from './ssrf.js';

/** Most subscriptions one workspace may have. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 50;

/** What the engine keeps for webhooks: the SSRF allow-list, the secret box, the dispatcher. */
export interface WebhookServices {
  readonly allow: AllowList;
  readonly secrets: SecretBox;
  readonly resolve: Resolver;
  /** The dispatcher this engine runs (`startWebhooks`), stopped before the engine closes. */
  dispatcher: { stop(): Promise<void> } | null;
}

export function webhookServices(
  allow: AllowList,
  secrets: SecretBox,
  resolve: Resolver = resolveAll,
): WebhookServices {
  return { allow, secrets, resolve, dispatcher: null };
}

/** Whether an event goes to a subscription: its type is subscribed and its path matches the glob. */
export function webhookFilter(
  hook: Pick<WebhookRecord, 'events' | 'pathGlob'>,
): (type: string, path: string) => boolean {
  const events = new Set(hook.events);
  const glob = hook.pathGlob;
  // Like `list`'s glob: matched against the path without its leading "/", dotfiles included.
  const isMatch = glob === null ? () => true : picomatch(glob.replace(/^\/+/, ''), { dot: true });
  return (type, path) => events.has(type) && isMatch(path.slice(1));
}

function webhookOut(hook: WebhookRecord, workspace: string): Webhook {
  return {
    id: hook.id,
    workspace,
    url: hook.url,
    events: [...hook.events] as WebhookEvent[],
    path: hook.pathGlob,
    description: hook.description,
    enabled: hook.enabled,
    disabledReason: hook.disabledReason,
    createdAt: iso(hook.createdAt),
    createdBy: hook.createdBy,
  };
}

function deliveryOut(row: DeliveryRecord, attempts: readonly AttemptRecord[]): WebhookDelivery {
  const at = (ms: number | null) => (ms === null ? null : iso(ms));
  return {
    id: row.id,
    webhookId: row.webhookId,
    eventSeq: row.eventSeq,
    eventType: row.eventType,
    path: row.eventPath,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: at(row.nextAttemptAt),
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    createdAt: iso(row.createdAt),
    deliveredAt: at(row.deliveredAt),
    log: attempts.map((a) => ({
      at: iso(a.at),
      status: a.status,
      error: a.error,
      durationMs: a.durationMs,
    })),
  };
}

function webhookNotFound(id: string): SatchelError {
  return new SatchelError('NOT_FOUND', `webhook ${id} not found`, { webhook: id });
}

async function requireWebhook(
  db: MetadataQueries,
  workspaceId: string,
  id: string,
): Promise<WebhookRecord> {
  const row = await db.webhooks.byId(workspaceId, id);
  if (!row) throw webhookNotFound(id);
  return row;
}

/**
 * Subscribes `input.url` to the workspace's changes from now on (no back-fill of history).
 * INVALID_INPUT for a bad URL, or one the SSRF guard refuses (`data.reason` 'ssrf' naming the
 * address); TOO_LARGE past MAX_WEBHOOKS_PER_WORKSPACE. The secret is in the result only.
 */
export async function createWebhook(
  ctx: EngineContext,
  hooks: WebhookServices,
  workspace: string,
  input: CreateWebhook,
): Promise<CreatedWebhook> {
  const options = parseOptions(CreateWebhookSchema, input);
  const url = await checkWebhookUrl(options.url, hooks.allow, hooks.resolve);
  const id = `wh_${randomBytes(8).toString('hex')}`;
  const secret = generateWebhookSecret();
  const sealed = await hooks.secrets.seal(secret, id);
  const events = [...new Set(options.events ?? WebhookEventSchema.options)];
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const existing = await tx.webhooks.list(ws.id);
    if (existing.length >= MAX_WEBHOOKS_PER_WORKSPACE) {
      throw new SatchelError(
        'TOO_LARGE',
        `${workspace} has ${existing.length} webhooks, the most a workspace may have`,
        { limit: MAX_WEBHOOKS_PER_WORKSPACE },
      );
    }
    const row: WebhookRecord = {
      id,
      workspaceId: ws.id,
      url: url.href,
      events,
      pathGlob: options.path ?? null,
      description: options.description ?? null,
      secretCiphertext: sealed,
      enabled: true,
      disabledReason: null,
      cursor: ws.seq,
      createdAt: ctx.clock(),
      createdBy: ctx.actor.name,
    };
    await tx.webhooks.insert(row);
    return { ...webhookOut(row, ws.name), secret };
  });
}

export async function listWebhooks(ctx: EngineContext, workspace: string): Promise<Webhook[]> {
  const ws = await requireWorkspace(ctx.store, workspace);
  return (await ctx.store.webhooks.list(ws.id)).map((row) => webhookOut(row, ws.name));
}

export async function getWebhook(
  ctx: EngineContext,
  workspace: string,
  id: string,
): Promise<Webhook> {
  const ws = await requireWorkspace(ctx.store, workspace);
  return webhookOut(await requireWebhook(ctx.store, ws.id, id), ws.name);
}

/**
 * Changes a subscription. `enabled: false` stops delivery (queued deliveries become dead);
 * `enabled: true` resumes it from the workspace's current seq and clears the disabled reason.
 * A new URL passes the same checks as at creation.
 */
export async function updateWebhook(
  ctx: EngineContext,
  hooks: WebhookServices,
  workspace: string,
  id: string,
  change: UpdateWebhook,
): Promise<Webhook> {
  const options = parseOptions(UpdateWebhookSchema, change);
  const url =
    options.url === undefined
      ? undefined
      : (await checkWebhookUrl(options.url, hooks.allow, hooks.resolve)).href;
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const row = await requireWebhook(tx, ws.id, id);
    const next: { -readonly [K in keyof WebhookChange]: WebhookChange[K] } = {};
    if (url !== undefined) next.url = url;
    if (options.events !== undefined) next.events = [...new Set(options.events)];
    if (options.path !== undefined) next.pathGlob = options.path;
    if (options.description !== undefined) next.description = options.description;
    if (options.enabled === true && !row.enabled) {
      Object.assign(next, { enabled: true, disabledReason: null, cursor: ws.seq });
    } else if (options.enabled === false && row.enabled) {
      const reason = `disabled by ${ctx.actor.name}`;
      Object.assign(next, { enabled: false, disabledReason: reason });
      await tx.webhooks.killActive(id, reason);
    }
    await tx.webhooks.update(id, next);
    return webhookOut({ ...row, ...next }, ws.name);
  });
}

/** Deletes a subscription with its queue and delivery log. */
export async function deleteWebhook(
  ctx: EngineContext,
  workspace: string,
  id: string,
): Promise<void> {
  await ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    await requireWebhook(tx, ws.id, id);
    await tx.webhooks.delete(id);
  });
}

/** The delivery log of a subscription: newest event first, each with its attempts, paginated. */
export async function listWebhookDeliveries(
  ctx: EngineContext,
  workspace: string,
  id: string,
  rawOptions?: PageOptions,
): Promise<Page<WebhookDelivery>> {
  const options = parseOptions(PageOptionsSchema, rawOptions);
  const limit = options.limit ?? 100;
  const cursor = decodeCursor(options.cursor, ['s', 'p']);
  const ws = await requireWorkspace(ctx.store, workspace);
  await requireWebhook(ctx.store, ws.id, id);
  const before = cursor ? { seq: Number(cursor.s), path: String(cursor.p) } : null;
  const rows = await ctx.store.webhooks.deliveries(id, before, limit + 1);
  const items = rows.slice(0, limit);
  const attempts = await ctx.store.webhooks.attemptsOf(items.map((row) => row.id));
  const byDelivery = new Map<string, AttemptRecord[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.deliveryId) ?? [];
    list.push(attempt);
    byDelivery.set(attempt.deliveryId, list);
  }
  const last = items.at(-1);
  return {
    items: items.map((row) => deliveryOut(row, byDelivery.get(row.id) ?? [])),
    nextCursor:
      rows.length > limit && last ? encodeCursor({ s: last.eventSeq, p: last.eventPath }) : null,
  };
}
