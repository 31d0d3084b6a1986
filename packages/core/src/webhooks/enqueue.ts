/**
 * The producer side of the webhook queue: tails each enabled subscription's workspace change feed
 * from its cursor and queues one delivery per matching event, advancing the cursor in the same
 * transaction. Deliveries are therefore durable from the moment they exist, and none is lost
 * or queued twice across a restart.
 */
import { randomBytes } from 'node:crypto';
import type { WebhookPayload } from '@satchel/client/schemas/index.js';
import { changeEvent } from '../kernel/records.js';
import type { GroupCommitter } from '../store/group-commit.js';
import type { MetadataStore, MetadataTx, VersionRow } from '../store/metadata/metadata-store.js';
import * as q from '../store/metadata/webhook-queries.js';
import { webhookFilter } from './webhooks.js';

/** Events read per subscription per transaction. */
const BATCH = 500;

/** A delivery id, sent as `webhook-id`: the same on every retry of the delivery. */
function deliveryId(): string {
  return `msg_${randomBytes(12).toString('hex')}`;
}

export function payloadOf(workspace: string, row: VersionRow): WebhookPayload {
  const event = changeEvent(row);
  return { type: `file.${row.op}`, timestamp: event.time, data: { workspace, ...event } };
}

/** The next rows after `after`, cut so that no change (seq) is split across calls. */
async function wholeChanges(
  tx: MetadataTx,
  workspaceId: string,
  after: number,
): Promise<VersionRow[]> {
  const rows = await tx.listChanges(workspaceId, { after, limit: BATCH + 1 });
  if (rows.length <= BATCH) return rows;
  const lastSeq = Number(rows[BATCH - 1]?.seq);
  const whole = rows.slice(0, BATCH).filter((row) => Number(row.seq) !== lastSeq);
  return whole.length > 0 ? whole : tx.listChanges(workspaceId, { atSeq: lastSeq });
}

/**
 * Queues the events of one subscription that came after its cursor (at most one batch).
 * Returns how many events it read: 0 once the subscription has caught up.
 */
async function enqueueOne(tx: MetadataTx, webhookId: string, now: number): Promise<number> {
  const hook = await tx.kysely
    .selectFrom('webhooks')
    .innerJoin('workspaces', 'workspaces.id', 'webhooks.workspace_id')
    .selectAll('webhooks')
    .select('workspaces.name as workspace_name')
    .where('webhooks.id', '=', webhookId)
    .executeTakeFirst();
  if (hook?.enabled !== 1) return 0;
  const rows = await wholeChanges(tx, hook.workspace_id, Number(hook.cursor));
  const last = rows.at(-1);
  if (!last) {
    // A seq handed out without versions: step over it (a write transaction sees every commit).
    const seq = await tx.workspaceSeq(hook.workspace_id);
    if (seq !== undefined && seq > Number(hook.cursor)) {
      await q.updateWebhook(tx.kysely, hook.id, { cursor: seq });
    }
    return 0;
  }
  const matches = webhookFilter(hook);
  for (const row of rows) {
    if (!matches(row.op, row.path)) continue;
    await q.insertDelivery(tx.kysely, {
      id: deliveryId(),
      webhook_id: hook.id,
      workspace_id: hook.workspace_id,
      event_seq: Number(row.seq),
      event_path: row.path,
      event_type: `file.${row.op}`,
      payload: JSON.stringify(payloadOf(hook.workspace_name, row)),
      status: 'pending',
      next_attempt_at: now,
      last_status: null,
      last_error: null,
      created_at: now,
      delivered_at: null,
    });
  }
  await q.updateWebhook(tx.kysely, hook.id, { cursor: Number(last.seq) });
  return rows.length;
}

/**
 * Brings every enabled subscription's queue up to date with its workspace. Returns the number
 * of events read (0 when nothing was new).
 */
export async function enqueueAll(
  store: MetadataStore,
  committer: GroupCommitter,
  now: () => number,
): Promise<number> {
  let total = 0;
  for (const hook of await q.enabledWebhooks(store.kysely)) {
    const seq = await store.workspaceSeq(hook.workspace_id);
    // Cheap check outside a transaction: most passes find nothing new.
    if (seq === undefined || seq <= Number(hook.cursor)) continue;
    for (;;) {
      const read = await committer.run((tx) => enqueueOne(tx, hook.id, now()));
      total += read;
      if (read === 0) break;
    }
  }
  return total;
}
