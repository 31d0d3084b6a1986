/**
 * Comment events for webhooks: `comment.created` and `comment.resolved` are queued in the
 * comment's own transaction, one delivery per enabled subscription that asks for the event and
 * whose glob matches the file. A comment claims no seq, so these do not come from the change
 * feed; each delivery is keyed on its own (`<path>#<event>:<id>:<time>`), so comment events are
 * never held back behind a file's changes or each other. They go out at the dispatcher's next
 * pass (within its poll interval, 1 s by default).
 */
import { randomBytes } from 'node:crypto';
import type { MetadataTx } from '../store/metadata/metadata-store.js';
import { webhookFilter } from './webhooks.js';

export type CommentEventType = 'comment.created' | 'comment.resolved';

/** Queues `type` for `path` in workspace `ws` with `data` (merged after the workspace name). */
export async function enqueueCommentEvent(
  tx: MetadataTx,
  ws: { readonly id: string; readonly name: string; readonly seq: number },
  type: CommentEventType,
  path: string,
  commentId: string,
  data: Readonly<Record<string, unknown>>,
  now: number,
): Promise<void> {
  const hooks = await tx.webhooks.list(ws.id);
  const timestamp = new Date(now).toISOString();
  const payload = JSON.stringify({ type, timestamp, data: { workspace: ws.name, ...data } });
  for (const hook of hooks) {
    if (!hook.enabled || !webhookFilter(hook)(type, path)) continue;
    await tx.webhooks.enqueue({
      id: `msg_${randomBytes(12).toString('hex')}`,
      webhookId: hook.id,
      workspaceId: ws.id,
      // The workspace's head when the comment was made: where its deliveries sort.
      eventSeq: ws.seq,
      eventPath: `${path}#${type}:${commentId}:${now}`,
      eventType: type,
      payload,
      status: 'pending',
      nextAttemptAt: now,
      lastStatus: null,
      lastError: null,
      createdAt: now,
      deliveredAt: null,
    });
  }
}
