/**
 * Group commit: mutations that arrive while a commit is in flight are committed together in the
 * next transaction, so concurrent writers share one fsync (DESIGN.md, Durability rule).
 */
import type { MetadataStore, MetadataTx } from './metadata/metadata-store.js';

type Op = (tx: MetadataTx) => Promise<unknown>;

interface Pending {
  readonly op: Op;
  readonly durable: boolean;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export class GroupCommitter {
  #queue: Pending[] = [];
  #draining = false;

  constructor(
    private readonly store: MetadataStore,
    private readonly maxBatch = 512,
  ) {}

  /**
   * Runs `op` inside a write transaction and resolves once that transaction has committed
   * durably. `op` must only touch the database (no network or blob I/O): the whole batch waits
   * for it. If `op` throws, its own writes are rolled back and the error is rethrown to the
   * caller; other operations of the batch are unaffected. With `durable: false` the commit
   * survives a process crash but not a power loss (lock leases only); such operations are
   * batched apart from durable ones.
   */
  run<T>(op: (tx: MetadataTx) => Promise<T>, options: { durable?: boolean } = {}): Promise<T> {
    const durable = options.durable ?? true;
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ op, durable, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#draining) void this.#drain();
    });
  }

  /** Up to maxBatch queued operations of one durability class, in arrival order. */
  #take(durable: boolean): Pending[] {
    const taken: Pending[] = [];
    const kept: Pending[] = [];
    for (const pending of this.#queue) {
      if (pending.durable === durable && taken.length < this.maxBatch) taken.push(pending);
      else kept.push(pending);
    }
    this.#queue = kept;
    return taken;
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#queue.length > 0) {
        // Let callers that are ready in this turn of the event loop join the batch.
        await new Promise<void>((resolve) => setImmediate(resolve));
        const durable = this.#queue[0]?.durable ?? true;
        const batch = this.#take(durable);
        try {
          const results = await this.store.batch(
            batch.map((p) => p.op),
            { durable },
          );
          results.forEach((result, i) => {
            const pending = batch[i];
            if (!pending) return;
            if (result.ok) pending.resolve(result.value);
            else pending.reject(result.error);
          });
        } catch (error) {
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      this.#draining = false;
    }
  }
}
