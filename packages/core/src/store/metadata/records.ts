/**
 * Records: the rows of the metadata store as the code outside `store/` sees them, in camelCase
 * and with numbers as numbers. The mapping from the snake_case columns of `tables.ts` lives only
 * in the area modules beside this file (`*-queries.ts`).
 */

/** A lock, in whatever state (live, expired or released). Times are epoch milliseconds. */
export interface LockRecord {
  readonly id: string;
  readonly workspaceId: string;
  readonly path: string;
  readonly scope: 'file' | 'tree';
  readonly mode: 'exclusive' | 'shared';
  readonly token: number;
  readonly holder: string;
  readonly session: string | null;
  readonly acquiredAt: number;
  readonly expiresAt: number;
  readonly releasedAt: number | null;
  readonly releasedBy: string | null;
}

/** A webhook subscription. `events` are the subscribed version ops; `cursor` the newest seq queued. */
export interface WebhookRecord {
  readonly id: string;
  readonly workspaceId: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly pathGlob: string | null;
  readonly description: string | null;
  readonly secretCiphertext: string;
  readonly enabled: boolean;
  readonly disabledReason: string | null;
  readonly cursor: number;
  readonly createdAt: number;
  readonly createdBy: string;
}

/** What an update may change of a subscription. */
export type WebhookChange = Partial<
  Pick<
    WebhookRecord,
    'url' | 'events' | 'pathGlob' | 'description' | 'enabled' | 'disabledReason' | 'cursor'
  >
>;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dead';

/** One event queued for (or delivered to) one subscription; `payload` is the exact body sent. */
export interface DeliveryRecord {
  readonly id: string;
  readonly webhookId: string;
  readonly workspaceId: string;
  readonly eventSeq: number;
  readonly eventPath: string;
  readonly eventType: string;
  readonly payload: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly nextAttemptAt: number | null;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
  readonly createdAt: number;
  readonly deliveredAt: number | null;
}

/** Where a delivery stands after an attempt. */
export type DeliveryState = Pick<
  DeliveryRecord,
  'status' | 'nextAttemptAt' | 'lastStatus' | 'lastError' | 'deliveredAt'
>;

/** One attempt of a delivery. */
export interface AttemptRecord {
  readonly deliveryId: string;
  readonly workspaceId: string;
  readonly attempt: number;
  readonly at: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}
