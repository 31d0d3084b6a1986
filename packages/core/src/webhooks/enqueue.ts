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
import type { MetadataStore, MetadataTx, VersionRecord } from '../store/metadata/metadata-store.js';
import { webhookFilter } from './webhooks.js';

/** Events read per subscription per transaction. */
const BATCH = 500;

/** A delivery id, sent as `webhook-id`: the same on every retry of the delivery. */
function deliveryId(): string {
  return `msg_${randomBytes(12).toString('hex')}`;
}

export function payloadOf(workspace: string, row: VersionRecord): WebhookPayload {
  const event = changeEvent(row);
  return { type: `file.${row.op}`, timestamp: event.time, data: { workspace, ...event } };
}

/**
 * Queues the events of one subscription that came after its cursor (at most one batch).
 * Returns how many events it read: 0 once the subscription has caught up.
 */
async function enqueueOne(tx: MetadataTx, webhookId: string, now: number): Promise<number> {
  const hook = await tx.webhooks.withWorkspace(webhookId);
  if (!hook?.enabled) return 0;
  const rows = await tx.wholeChanges(hook.workspaceId, { after: hook.cursor, limit: BATCH });
  const last = rows.at(-1);
  if (!last) {
    // A seq handed out without versions: step over it (a write transaction sees every commit).
    const seq = await tx.workspaceSeq(hook.workspaceId);
    if (seq !== undefined && seq > hook.cursor) await tx.webhooks.update(hook.id, { cursor: seq });
    return 0;
  }
  const matches = webhookFilter(hook);
  for (const row of rows) {
    if (!matches(row.op, row.path)) continue;
    await tx.webhooks.enqueue({
      id: deliveryId(),
      webhookId: hook.id,
      workspaceId: hook.workspaceId,
      eventSeq: row.seq,
      eventPath: row.path,
      eventType: `file.${row.op}`,
      payload: JSON.stringify(payloadOf(hook.workspaceName, row)),
      status: 'pending',
      nextAttemptAt: now,
      lastStatus: null,
      lastError: null,
      createdAt: now,
      deliveredAt: null,
    });
  }
  await tx.webhooks.update(hook.id, { cursor: last.seq });
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
  for (const hook of await store.webhooks.enabled()) {
    const seq = await store.workspaceSeq(hook.workspaceId);
    // Cheap check outside a transaction: most passes find nothing new.
    if (seq === undefined || seq <= hook.cursor) continue;
    for (;;) {
      const read = await committer.run((tx) => enqueueOne(tx, hook.id, now()));
      total += read;
      if (read === 0) break;
    }
  }
  return total;
}
