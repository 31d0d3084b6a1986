/**
 * The webhook dispatcher: queues events from the change feed (enqueue.ts) and delivers due
 * deliveries, signed per Standard Webhooks, with bounded concurrency; a failure is retried on a
 * schedule with jitter until it runs out (dead); a 410 disables the subscription. Everything it
 * knows is in the database, so a restarted dispatcher carries on where the last one stopped.
 * Delivery is at least once: a receiver deduplicates by `webhook-id`.
 */

import { SatchelError } from '@satchel/client/errors.js';
import { Webhook as Signer } from 'standardwebhooks';
import type { ChangeNotifier } from '../kernel/change-notifier.js';
import { iso } from '../kernel/records.js';
import type { GroupCommitter } from '../store/group-commit.js';
import type { MetadataStore } from '../store/metadata/metadata-store.js';
import type { DeliveryRecord, DeliveryState } from '../store/metadata/records.js';
import { ACTIVE_STATUSES } from '../store/metadata/webhook-queries.js';
import { type AttemptResult, postOnce } from './deliver.js';
import { enqueueAll } from './enqueue.js';
import { AllowList } from './ssrf.js';
import type { WebhookServices } from './webhooks.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
/** A claim outlives the attempt's timeout by this much (recording the outcome takes a commit). */
const CLAIM_MARGIN_MS = 30 * SECOND;

/** Delays before the 2nd, 3rd, … attempt (as Standard Webhooks / Svix); after the last, dead. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * 60 * SECOND,
  30 * 60 * SECOND,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

export interface WebhookDispatchOptions {
  /** SSRF allow-list (hosts, addresses, CIDRs); default the engine's `webhookAllow`. */
  readonly allow?: readonly string[];
  /** Delay before each retry; its length is the number of retries. Default DEFAULT_RETRY_SCHEDULE_MS. */
  readonly retryScheduleMs?: readonly number[];
  /** Each delay is varied by up to ± this fraction, at random (0–1, default 0.1). */
  readonly jitter?: number;
  /** Per-attempt timeout, connection to last byte read (default 10 s). */
  readonly timeoutMs?: number;
  /** Attempts in flight at once (default 8). */
  readonly concurrency?: number;
  /** How often to look for changes committed by other processes (default 1 s). */
  readonly pollMs?: number;
  /** Receives unexpected faults of the dispatch loop (default: a line on stderr); it carries on. */
  readonly onError?: (error: unknown) => void;
}

/**
 * A running dispatcher (`SatchelEngine.startWebhooks`).
 *
 * Seam, background webhook dispatch (`Dispatcher`, in-process, below). Contract a multi-node
 * implementation must keep: queueing advances a subscription's cursor in the same transaction
 * that inserts its deliveries (so no event is queued twice or lost), and a delivery attempt is
 * claimed in the database before it is sent, so two nodes never send the same attempt at once;
 * delivery stays at least once (receivers deduplicate by `webhook-id`).
 */
export interface WebhookDispatcher {
  /** Deliveries waiting for an attempt (pending or failed-and-scheduled), across all workspaces. */
  queueDepth(): Promise<number>;
  /** Stops queueing and starting attempts, and resolves once the attempts in flight are recorded. */
  stop(): Promise<void>;
}

export interface DispatcherDeps {
  readonly store: MetadataStore;
  readonly committer: GroupCommitter;
  readonly changes: ChangeNotifier;
  readonly clock: () => number;
  readonly hooks: WebhookServices;
}

function invalid(field: string, message: string): SatchelError {
  return new SatchelError('INVALID_INPUT', `invalid ${field}: ${message}`, { field });
}

function positive(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw invalid(field, 'must be a positive number');
  return value;
}

function defaultOnError(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `${JSON.stringify({ level: 'error', msg: 'webhook dispatch', error: message })}\n`,
  );
}

export class Dispatcher implements WebhookDispatcher {
  readonly #deps: DispatcherDeps;
  readonly #allow: AllowList;
  readonly #schedule: readonly number[];
  readonly #jitter: number;
  readonly #timeoutMs: number;
  readonly #concurrency: number;
  readonly #pollMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #loop: Promise<void>;
  #workspaces: string[] = [];
  #wake: (() => void) | null = null;
  #stopped = false;

  /** INVALID_INPUT for options out of range; starts at once. */
  constructor(deps: DispatcherDeps, options: WebhookDispatchOptions = {}) {
    this.#deps = deps;
    this.#allow = options.allow === undefined ? deps.hooks.allow : AllowList.parse(options.allow);
    const schedule = options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
    if (!schedule.every((ms) => Number.isFinite(ms) && ms >= 0)) {
      throw invalid('retryScheduleMs', 'delays must be non-negative numbers');
    }
    this.#schedule = [...schedule];
    const jitter = options.jitter ?? 0.1;
    if (!(jitter >= 0 && jitter <= 1)) throw invalid('jitter', 'must be between 0 and 1');
    this.#jitter = jitter;
    this.#timeoutMs = positive(options.timeoutMs, 10 * SECOND, 'timeoutMs');
    this.#concurrency = Math.floor(positive(options.concurrency, 8, 'concurrency'));
    this.#pollMs = positive(options.pollMs, SECOND, 'pollMs');
    this.#onError = options.onError ?? defaultOnError;
    this.#loop = this.#run();
  }

  queueDepth(): Promise<number> {
    return this.#deps.store.webhooks.countQueued();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#poke();
    await this.#loop;
    await Promise.all(this.#inFlight.values());
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  async #run(): Promise<void> {
    while (!this.#stopped && !this.#deps.changes.closed) {
      try {
        const { store, committer, clock } = this.#deps;
        await enqueueAll(store, committer, clock);
        this.#workspaces = (await store.webhooks.enabled()).map((h) => h.workspaceName);
        await this.#startDue();
      } catch (error) {
        if (this.#stopped) break;
        this.#onError(error);
      }
      await this.#sleep();
    }
  }

  /** Until a change commits, an attempt ends, a retry falls due, `pollMs` passes, or stop. */
  async #sleep(): Promise<void> {
    if (this.#stopped) return;
    let delay = this.#pollMs;
    if (this.#inFlight.size < this.#concurrency) {
      const busy = [...this.#inFlight.keys()];
      const due = await this.#deps.store.webhooks.nextDueAt(busy).catch(() => null);
      if (due !== null) delay = Math.max(0, Math.min(delay, due - this.#deps.clock()));
    }
    if (delay === 0) return;
    const { changes } = this.#deps;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, delay);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
      if (this.#stopped) done();
      for (const ws of new Set(this.#workspaces)) void changes.wait(ws, delay).then(done);
    });
    this.#wake = null;
  }

  async #startDue(): Promise<void> {
    const free = this.#concurrency - this.#inFlight.size;
    if (free <= 0 || this.#stopped) return;
    const { store, committer, clock } = this.#deps;
    const busy = [...this.#inFlight.keys()];
    // A cheap look first: most passes find nothing due.
    if ((await store.webhooks.due(clock(), 1, busy)).length === 0) return;
    // Claimed for longer than an attempt can take: no other node sends these meanwhile.
    const leaseUntil = clock() + this.#timeoutMs + CLAIM_MARGIN_MS;
    const due = await committer.run((tx) => tx.webhooks.claim(clock(), free, busy, leaseUntil), {
      durable: false,
    });
    for (const row of due) {
      if (this.#stopped) return;
      const attempt = this.#attempt(row)
        .catch((error: unknown) => this.#onError(error))
        .finally(() => {
          this.#inFlight.delete(row.id);
          this.#poke();
        });
      this.#inFlight.set(row.id, attempt);
    }
  }

  async #attempt(row: DeliveryRecord): Promise<void> {
    const { store, hooks, clock } = this.#deps;
    const hook = await store.webhooks.byId(row.workspaceId, row.webhookId);
    // Deleted or disabled since it was queued: its deliveries are gone or dead already.
    if (!hook?.enabled) return;
    let result: AttemptResult;
    const at = clock();
    try {
      const secret = await hooks.secrets.open(hook.secretCiphertext, hook.id);
      const timestamp = new Date(at);
      const headers = {
        'webhook-id': row.id,
        'webhook-timestamp': String(Math.floor(at / 1000)),
        'webhook-signature': new Signer(secret).sign(row.id, timestamp, row.payload),
      };
      result = await postOnce(new URL(hook.url), row.payload, headers, {
        timeoutMs: this.#timeoutMs,
        allow: this.#allow,
      });
    } catch (error) {
      result = {
        status: null,
        error: error instanceof Error ? error.message : String(error),
        durationMs: 0,
      };
    }
    await this.#record(row, at, result);
  }

  /** Logs the attempt and moves the delivery on: delivered, retried later, or dead. */
  async #record(row: DeliveryRecord, at: number, result: AttemptResult): Promise<void> {
    const now = this.#deps.clock();
    const attempt = row.attempts + 1;
    const gone = result.status === 410;
    const delay = this.#schedule[attempt - 1];
    const change: DeliveryState =
      result.error === null
        ? {
            status: 'delivered',
            nextAttemptAt: null,
            lastStatus: result.status,
            lastError: null,
            deliveredAt: now,
          }
        : {
            status: gone || delay === undefined ? 'dead' : 'failed',
            nextAttemptAt: gone || delay === undefined ? null : now + this.#jittered(delay),
            lastStatus: result.status,
            lastError: result.error,
            deliveredAt: null,
          };
    await this.#deps.committer.run(async (tx) => {
      const current = await tx.webhooks.delivery(row.id);
      if (!current) return;
      const active = (ACTIVE_STATUSES as readonly string[]).includes(current.status);
      await tx.webhooks.recordAttempt(
        {
          deliveryId: row.id,
          workspaceId: row.workspaceId,
          attempt,
          at,
          status: result.status,
          error: result.error,
          durationMs: result.durationMs,
        },
        // Ended meanwhile (the subscription was disabled): log the attempt, keep the ending.
        active ? change : current,
      );
      if (gone && active) {
        const reason = `the endpoint answered 410 Gone at ${iso(now)}`;
        await tx.webhooks.update(row.webhookId, { enabled: false, disabledReason: reason });
        await tx.webhooks.killActive(row.webhookId, reason);
      }
    });
  }

  #jittered(delay: number): number {
    return Math.max(0, Math.round(delay * (1 + this.#jitter * (2 * Math.random() - 1))));
  }
}
