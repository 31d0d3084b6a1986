/** SQL for webhook subscriptions, their delivery queue and the attempt log (portable Kysely). */
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import type {
  AttemptRecord,
  DeliveryRecord,
  DeliveryState,
  WebhookChange,
  WebhookRecord,
} from './records.js';
import type {
  Database,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
} from './tables.js';

/** Statuses of deliveries still waiting for an attempt: the queue. */
export const ACTIVE_STATUSES = ['pending', 'failed'] as const;

function toWebhook(row: Selectable<WebhooksTable>): WebhookRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    pathGlob: row.path_glob,
    description: row.description,
    secretCiphertext: row.secret_ciphertext,
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    cursor: Number(row.cursor),
    createdAt: Number(row.created_at),
    createdBy: row.created_by,
  };
}

function webhookColumns(change: WebhookChange): Updateable<WebhooksTable> {
  const columns: Updateable<WebhooksTable> = {};
  if (change.url !== undefined) columns.url = change.url;
  if (change.events !== undefined) columns.events = JSON.stringify(change.events);
  if (change.pathGlob !== undefined) columns.path_glob = change.pathGlob;
  if (change.description !== undefined) columns.description = change.description;
  if (change.enabled !== undefined) columns.enabled = change.enabled ? 1 : 0;
  if (change.disabledReason !== undefined) columns.disabled_reason = change.disabledReason;
  if (change.cursor !== undefined) columns.cursor = change.cursor;
  return columns;
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>): DeliveryRecord {
  const at = (ms: number | null) => (ms === null ? null : Number(ms));
  return {
    id: row.id,
    webhookId: row.webhook_id,
    workspaceId: row.workspace_id,
    eventSeq: Number(row.event_seq),
    eventPath: row.event_path,
    eventType: row.event_type,
    payload: row.payload,
    status: row.status,
    attempts: Number(row.attempts),
    nextAttemptAt: at(row.next_attempt_at),
    lastStatus: at(row.last_status),
    lastError: row.last_error,
    createdAt: Number(row.created_at),
    deliveredAt: at(row.delivered_at),
  };
}

function toAttempt(row: Selectable<WebhookAttemptsTable>): AttemptRecord {
  return {
    deliveryId: row.delivery_id,
    workspaceId: row.workspace_id,
    attempt: Number(row.attempt),
    at: Number(row.at),
    status: row.status === null ? null : Number(row.status),
    error: row.error,
    durationMs: Number(row.duration_ms),
  };
}

/** The webhook area of the metadata store (`store.webhooks`, `tx.webhooks`). */
export class WebhookQueries {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialectInfo,
  ) {}

  async insert(hook: WebhookRecord): Promise<void> {
    await this.db
      .insertInto('webhooks')
      .values({
        id: hook.id,
        workspace_id: hook.workspaceId,
        url: hook.url,
        events: JSON.stringify(hook.events),
        path_glob: hook.pathGlob,
        description: hook.description,
        secret_ciphertext: hook.secretCiphertext,
        enabled: hook.enabled ? 1 : 0,
        disabled_reason: hook.disabledReason,
        cursor: hook.cursor,
        created_at: hook.createdAt,
        created_by: hook.createdBy,
      })
      .execute();
  }

  /** The subscription `id` of the workspace. */
  async byId(workspaceId: string, id: string): Promise<WebhookRecord | undefined> {
    const row = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toWebhook(row);
  }

  /** The subscription `id` with the name of its workspace, whichever workspace it is in. */
  async withWorkspace(
    id: string,
    options: { lock?: boolean } = {},
  ): Promise<(WebhookRecord & { workspaceName: string }) | undefined> {
    const row = await this.db
      .selectFrom('webhooks')
      .innerJoin('workspaces', 'workspaces.id', 'webhooks.workspace_id')
      .selectAll('webhooks')
      .select('workspaces.name as workspace_name')
      .where('webhooks.id', '=', id)
      .$if(options.lock === true && this.dialect.rowLocks, (q) => q.forUpdate('webhooks'))
      .executeTakeFirst();
    return row && { ...toWebhook(row), workspaceName: row.workspace_name };
  }

  /** A workspace's subscriptions, oldest first (bounded: creation refuses past the maximum). */
  async list(workspaceId: string): Promise<WebhookRecord[]> {
    const rows = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toWebhook);
  }

  /** Enabled subscriptions of every workspace, with the name of their workspace. */
  async enabled(): Promise<(WebhookRecord & { workspaceName: string })[]> {
    const rows = await this.db
      .selectFrom('webhooks')
      .innerJoin('workspaces', 'workspaces.id', 'webhooks.workspace_id')
      .selectAll('webhooks')
      .select('workspaces.name as workspace_name')
      .where('webhooks.enabled', '=', 1)
      .execute();
    return rows.map((row) => ({ ...toWebhook(row), workspaceName: row.workspace_name }));
  }

  async update(id: string, change: WebhookChange): Promise<void> {
    const columns = webhookColumns(change);
    if (Object.keys(columns).length === 0) return;
    await this.db.updateTable('webhooks').set(columns).where('id', '=', id).execute();
  }

  /**
   * Disables the enabled subscriptions `creator` made in a workspace, saying why; their queued
   * deliveries end as dead, as when an owner disables one.
   */
  async disableCreatedBy(workspaceId: string, creator: string, reason: string): Promise<void> {
    const hooks = await this.db
      .selectFrom('webhooks')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('created_by', '=', creator)
      .where('enabled', '=', 1)
      .execute();
    for (const { id } of hooks) {
      await this.update(id, { enabled: false, disabledReason: reason });
      await this.killActive(id, reason);
    }
  }

  /** Deletes a subscription with its deliveries and their attempts. */
  async delete(id: string): Promise<void> {
    const db = this.db;
    const deliveries = db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', id);
    await db.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
    await db.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
    await db.deleteFrom('webhooks').where('id', '=', id).execute();
  }

  /** Queues a delivery; one already queued for the same (subscription, seq, path) is kept. */
  async enqueue(delivery: Omit<DeliveryRecord, 'attempts'>): Promise<void> {
    await this.db
      .insertInto('webhook_deliveries')
      .values({
        id: delivery.id,
        webhook_id: delivery.webhookId,
        workspace_id: delivery.workspaceId,
        event_seq: delivery.eventSeq,
        event_path: delivery.eventPath,
        event_type: delivery.eventType,
        payload: delivery.payload,
        status: delivery.status,
        next_attempt_at: delivery.nextAttemptAt,
        last_status: delivery.lastStatus,
        last_error: delivery.lastError,
        created_at: delivery.createdAt,
        delivered_at: delivery.deliveredAt,
      })
      .onConflict((oc) => oc.columns(['webhook_id', 'event_seq', 'event_path']).doNothing())
      .execute();
  }

  /** Ends every queued delivery of a subscription (disabled, or its endpoint is gone). */
  async killActive(webhookId: string, reason: string): Promise<void> {
    await this.db
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
  async due(now: number, limit: number, busy: readonly string[]): Promise<DeliveryRecord[]> {
    let q = this.#headsOfQueue()
      .selectAll('d')
      .where('d.next_attempt_at', '<=', now)
      .orderBy('d.next_attempt_at')
      .orderBy('d.event_seq')
      .limit(limit);
    if (busy.length > 0) q = q.where('d.id', 'not in', busy);
    return (await q.execute()).map(toDelivery);
  }

  /**
   * Inside a transaction: takes up to `limit` deliveries due at `now` (as `due` picks them) for
   * this node until `leaseUntil` by moving their next attempt there, so no other node sends them
   * meanwhile; the attempt's outcome then sets the real next attempt. A node that dies holding a
   * claim only delays the delivery to `leaseUntil` (it is sent at least once, never lost).
   * PostgreSQL skips rows another node is claiming (`FOR UPDATE SKIP LOCKED`) rather than wait.
   */
  async claim(
    now: number,
    limit: number,
    busy: readonly string[],
    leaseUntil: number,
  ): Promise<DeliveryRecord[]> {
    let q = this.#headsOfQueue()
      .selectAll('d')
      .where('d.next_attempt_at', '<=', now)
      .orderBy('d.next_attempt_at')
      .orderBy('d.event_seq')
      .limit(limit)
      .$if(this.dialect.rowLocks, (q) => q.forUpdate('d').skipLocked());
    if (busy.length > 0) q = q.where('d.id', 'not in', busy);
    const rows = (await q.execute()).map(toDelivery);
    if (rows.length === 0) return rows;
    await this.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: leaseUntil })
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    return rows;
  }

  /** When the soonest queued delivery that may go next, other than `busy`, is due (null: none). */
  async nextDueAt(busy: readonly string[]): Promise<number | null> {
    let q = this.#headsOfQueue().select((eb) => eb.fn.min('d.next_attempt_at').as('at'));
    if (busy.length > 0) q = q.where('d.id', 'not in', busy);
    const row = await q.executeTakeFirst();
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }

  #headsOfQueue() {
    return this.db
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
  async countQueued(): Promise<number> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', 'in', ACTIVE_STATUSES)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async delivery(id: string): Promise<DeliveryRecord | undefined> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toDelivery(row);
  }

  /** Records one attempt and the delivery's new state. */
  async recordAttempt(attempt: AttemptRecord, state: DeliveryState): Promise<void> {
    await this.db
      .insertInto('webhook_attempts')
      .values({
        delivery_id: attempt.deliveryId,
        workspace_id: attempt.workspaceId,
        attempt: attempt.attempt,
        at: attempt.at,
        status: attempt.status,
        error: attempt.error,
        duration_ms: attempt.durationMs,
      })
      .execute();
    await this.db
      .updateTable('webhook_deliveries')
      .set({
        status: state.status,
        next_attempt_at: state.nextAttemptAt,
        last_status: state.lastStatus,
        last_error: state.lastError,
        delivered_at: state.deliveredAt,
        attempts: attempt.attempt,
      })
      .where('id', '=', attempt.deliveryId)
      .execute();
  }

  /**
   * A subscription's deliveries, newest event first, starting below (seq, path) `before` when
   * given, at most `limit`.
   */
  async deliveries(
    webhookId: string,
    before: { seq: number; path: string } | null,
    limit: number,
  ): Promise<DeliveryRecord[]> {
    let q = this.db
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
    return (await q.execute()).map(toDelivery);
  }

  /** The attempts of some deliveries, oldest first. */
  async attemptsOf(deliveryIds: readonly string[]): Promise<AttemptRecord[]> {
    if (deliveryIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', 'in', deliveryIds)
      .orderBy('delivery_id')
      .orderBy('attempt')
      .execute();
    return rows.map(toAttempt);
  }
}
