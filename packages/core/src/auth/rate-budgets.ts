/**
 * Rate-limit budgets: hits per key in fixed windows. `countHit` is on every request's path, so it
 * never waits for the database: counts are kept in memory and, when several nodes share one
 * database, merged there every `syncMs` (one statement per key and window that had hits on this
 * node since the last merge; the statement returns the total of every node). A node's view of a
 * key is that total as of its last merge plus its own hits since, so a key can overshoot its
 * limit by what each node lets through within one `syncMs` before it merges.
 */
import type { GroupCommitter } from '../store/group-commit.js';
import type { RateWindowHits } from '../store/metadata/rate-queries.js';

/** How often windows that ended long ago are deleted from the database. */
const PRUNE_EVERY_MS = 60_000;
/** Rows of windows that started longer ago than this are deleted (longer windows: per node). */
const KEEP_MS = 24 * 3_600_000;

export interface RateCount {
  /** Hits of the key in the current window, this one included. */
  readonly hits: number;
  /** When the current window ends (epoch ms). */
  readonly resetAt: number;
}

interface Window {
  readonly start: number;
  /** Every node's hits as of the last merge (this node's merged ones included). */
  merged: number;
  /** This node's hits since the last merge. */
  pending: number;
}

export interface RateBudgetsOptions {
  readonly clock?: () => number;
  /** Merge counts through the database (several nodes); null keeps them in this process. */
  readonly shared?: { readonly committer: GroupCommitter; readonly syncMs?: number } | null;
  /** Called when a merge fails (the counts stay pending and are merged next time). */
  readonly onError?: (error: unknown) => void;
}

export class RateBudgets {
  readonly #clock: () => number;
  readonly #shared: RateBudgetsOptions['shared'];
  readonly #onError: (error: unknown) => void;
  /** By `${windowMs}:${key}`: the window now counting. */
  readonly #windows = new Map<string, Window>();
  #timer: NodeJS.Timeout | null = null;
  #syncing: Promise<void> | null = null;
  #lastPrune = 0;

  constructor(options: RateBudgetsOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#shared = options.shared ?? null;
    this.#onError = options.onError ?? (() => undefined);
    if (this.#shared) {
      this.#timer = setInterval(() => void this.sync(), this.#shared.syncMs ?? 250);
      this.#timer.unref();
    }
  }

  /** Counts one hit of `key` in its current window of `windowMs`; returns the window's total. */
  countHit(key: string, windowMs: number): RateCount {
    const window = this.#window(key, windowMs);
    window.pending += 1;
    return { hits: window.merged + window.pending, resetAt: window.start + windowMs };
  }

  /** The current window of `key` as counted so far, without counting. */
  peek(key: string, windowMs: number): RateCount {
    const window = this.#window(key, windowMs);
    return { hits: window.merged + window.pending, resetAt: window.start + windowMs };
  }

  /** The budgets' clock (epoch ms). */
  now(): number {
    return this.#clock();
  }

  /** Takes back a hit counted by `countHit` (a request that should not count after all). */
  uncount(key: string, windowMs: number): void {
    const window = this.#window(key, windowMs);
    if (window.pending > 0) window.pending -= 1;
  }

  /** Forgets this node's count of `key` in every window (other nodes' merged hits stay). */
  reset(key: string): void {
    for (const [id, window] of this.#windows) {
      if (id.endsWith(`:${key}`)) window.pending = 0;
    }
  }

  /** Merges this node's pending hits into the database and learns the other nodes' totals. */
  sync(): Promise<void> {
    if (!this.#shared) return Promise.resolve();
    this.#syncing ??= this.#merge(this.#shared.committer).finally(() => {
      this.#syncing = null;
    });
    return this.#syncing;
  }

  /** Stops merging, after a last merge of what is pending. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.sync();
  }

  #window(key: string, windowMs: number): Window {
    const id = `${windowMs}:${key}`;
    const start = Math.floor(this.#clock() / windowMs) * windowMs;
    let window = this.#windows.get(id);
    if (!window || window.start !== start) {
      window = { start, merged: 0, pending: 0 };
      this.#windows.set(id, window);
    }
    return window;
  }

  async #merge(committer: GroupCommitter): Promise<void> {
    const now = this.#clock();
    const batch: { id: string; window: Window; hits: RateWindowHits }[] = [];
    for (const [id, window] of this.#windows) {
      const windowMs = Number(id.slice(0, id.indexOf(':')));
      if (window.start + windowMs <= now) {
        this.#windows.delete(id);
        continue;
      }
      if (window.pending === 0) continue;
      batch.push({
        id,
        window,
        hits: { key: id, windowStart: window.start, hits: window.pending },
      });
    }
    if (batch.length === 0) return;
    const taken = batch.map(({ window }) => window.pending);
    const prune = now - this.#lastPrune > PRUNE_EVERY_MS;
    if (prune) this.#lastPrune = now;
    try {
      // A lost merge (a crash before the next fsync) only forgets a few hits: not durable.
      const totals = await committer.run(
        async (tx) => {
          if (prune) await tx.rates.prune(now - KEEP_MS);
          return tx.rates.add(batch.map((b) => b.hits));
        },
        { durable: false },
      );
      for (const [i, { window }] of batch.entries()) {
        window.pending -= taken[i] ?? 0;
        window.merged = Math.max(window.merged, totals[i]?.hits ?? 0);
      }
    } catch (error) {
      this.#onError(error);
    }
  }
}
