/** SQL for webhook subscriptions, their delivery queue and the attempt log (portable Kysely). */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type {
  Database,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
} from './tables.js';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

/** Statuses of deliveries still waiting for an attempt: the queue. */
export const ACTIVE_STATUSES = ['pending', 'failed'] as const;

export function insertWebhook(db: Kysely<Database>, row: WebhookRow): Promise<unknown> {
  return db.insertInto('webhooks').values(row).execute();
}

export function webhookById(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A workspace's subscriptions, oldest first (bounded: creation refuses past the maximum). */
export function listWebhooks(db: Kysely<Database>, workspaceId: string): Promise<WebhookRow[]> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Enabled subscriptions of every workspace, with the name of their workspace. */
export function enabledWebhooks(
  db: Kysely<Database>,
): Promise<(WebhookRow & { workspace_name: string })[]> {
  return db
    .selectFrom('webhooks')
    .innerJoin('workspaces', 'workspaces.id', 'webhooks.workspace_id')
    .selectAll('webhooks')
    .select('workspaces.name as workspace_name')
    .where('webhooks.enabled', '=', 1)
    .execute();
}

export function updateWebhook(
  db: Kysely<Database>,
  id: string,
  change: Partial<Omit<WebhookRow, 'id' | 'workspace_id'>>,
): Promise<unknown> {
  return db.updateTable('webhooks').set(change).where('id', '=', id).execute();
}

/** Deletes a subscription with its deliveries and their attempts. */
export async function deleteWebhook(db: Kysely<Database>, id: string): Promise<void> {
  const deliveries = db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', id);
  await db.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
  await db.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

export function insertDelivery(
  db: Kysely<Database>,
  row: Insertable<WebhookDeliveriesTable>,
): Promise<unknown> {
  return db
    .insertInto('webhook_deliveries')
    .values(row)
    .onConflict((oc) => oc.columns(['webhook_id', 'event_seq', 'event_path']).doNothing())
    .execute();
}

/** Ends every queued delivery of a subscription (disabled, or its endpoint is gone). */
export function killActiveDeliveries(
  db: Kysely<Database>,
  webhookId: string,
  reason: string,
): Promise<unknown> {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'dead', next_attempt_at: null, last_error: reason })
    .where('webhook_id', '=', webhookId)
    .where('status', 'in', ACTIVE_STATUSES)
    .execute();
}

/**
 * Queued deliveries due at `now`, soonest first, at most `limit`, leaving out `busy` ones. Only
 * the oldest queued delivery of each (subscription, path) is eligible: events of one path go
 * out in seq order, a retry holding back the later ones.
 */
export function dueDeliveries(
  db: Kysely<Database>,
  now: number,
  limit: number,
  busy: readonly string[],
): Promise<DeliveryRow[]> {
  let q = headsOfQueue(db)
    .selectAll('d')
    .where('d.next_attempt_at', '<=', now)
    .orderBy('d.next_attempt_at')
    .orderBy('d.event_seq')
    .limit(limit);
  if (busy.length > 0) q = q.where('d.id', 'not in', busy);
  return q.execute();
}

/** When the soonest queued delivery that may go next, other than `busy`, is due (null: none). */
export async function nextDueAt(
  db: Kysely<Database>,
  busy: readonly string[],
): Promise<number | null> {
  let q = headsOfQueue(db).select((eb) => eb.fn.min('d.next_attempt_at').as('at'));
  if (busy.length > 0) q = q.where('d.id', 'not in', busy);
  const row = await q.executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}

function headsOfQueue(db: Kysely<Database>) {
  return db
    .selectFrom('webhook_deliveries as d')
    .where('d.status', 'in', ACTIVE_STATUSES)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as e')
            .select('e.id')
            .whereRef('e.webhook_id', '=', 'd.webhook_id')
            .whereRef('e.event_path', '=', 'd.event_path')
            .where('e.status', 'in', ACTIVE_STATUSES)
            .whereRef('e.event_seq', '<', 'd.event_seq'),
        ),
      ),
    );
}

/** Deliveries still queued, across all subscriptions. */
export async function countQueued(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'in', ACTIVE_STATUSES)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function deliveryById(db: Kysely<Database>, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Records one attempt and the delivery's new state. */
export async function recordAttempt(
  db: Kysely<Database>,
  attempt: AttemptRow,
  change: Pick<
    DeliveryRow,
    'status' | 'next_attempt_at' | 'last_status' | 'last_error' | 'delivered_at'
  >,
): Promise<void> {
  await db.insertInto('webhook_attempts').values(attempt).execute();
  await db
    .updateTable('webhook_deliveries')
    .set({ ...change, attempts: attempt.attempt })
    .where('id', '=', attempt.delivery_id)
    .execute();
}

/**
 * A subscription's deliveries, newest event first, starting below (seq, path) `before` when
 * given, at most `limit`.
 */
export function listDeliveries(
  db: Kysely<Database>,
  webhookId: string,
  before: { seq: number; path: string } | null,
  limit: number,
): Promise<DeliveryRow[]> {
  let q = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .orderBy('event_seq', 'desc')
    .orderBy('event_path', 'desc')
    .limit(limit);
  if (before !== null) {
    q = q.where((eb) =>
      eb.or([
        eb('event_seq', '<', before.seq),
        eb.and([eb('event_seq', '=', before.seq), eb('event_path', '<', before.path)]),
      ]),
    );
  }
  return q.execute();
}

/** The attempts of some deliveries, oldest first. */
export function attemptsOf(
  db: Kysely<Database>,
  deliveryIds: readonly string[],
): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('attempt')
    .execute();
}
