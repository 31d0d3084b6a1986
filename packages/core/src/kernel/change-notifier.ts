import { LocalSignals, type Signals } from '../store/signals.js';

/**
 * Change-feed wake-ups: who learns, and when, that a workspace changed.
 *
 * Contract (what a multi-node implementation must keep): `notify(workspace)` is called after a
 * commit that changed `workspace` is durable; every `subscribe` listener and every pending
 * `wait` of that workspace is then woken (at least once; spurious wake-ups are allowed, since
 * callers re-read the store). `wait` never outlives its `ms`: the change feed also re-reads on a
 * timer, so a lost wake-up costs latency, never a missed change. `close` wakes everyone and
 * makes later waits return at once.
 *
 * Wake-ups travel as `change` signals (store/signals.ts): in one process at once; between the
 * processes of one data directory through its signal file; between nodes on PostgreSQL through
 * LISTEN/NOTIFY; and through the callers' timers (`recheckMs`) when a signal is lost.
 */
export class ChangeNotifier {
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #listeners = new Set<(workspace: string) => void>();
  readonly #signals: Signals;
  readonly #unsubscribe: () => void;
  #closed = false;

  constructor(signals: Signals = new LocalSignals()) {
    this.#signals = signals;
    this.#unsubscribe = signals.subscribe((signal) => {
      if (signal.kind === 'change') this.#wake(signal.workspace);
      else if (signal.kind === 'resync') for (const ws of [...this.#waiters.keys()]) this.#wake(ws);
    });
  }

  /**
   * Calls `listener` (synchronously, so it must only schedule work) after every commit that
   * changed a workspace, until the returned function is called. The search indexer listens.
   */
  subscribe(listener: (workspace: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * How long a waiter may sleep before re-reading the store, in case a signal from another
   * process was lost (ms; the signals' own safety net, 1 s unless they say otherwise).
   */
  get recheckMs(): number {
    return this.#signals.recheckMs;
  }

  /** True once the engine is closing: long polls end at once, with what they have. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Called after every commit that changed `workspace`: wakes this node and the others. */
  notify(workspace: string): void {
    this.#signals.publish({ kind: 'change', workspace });
  }

  #wake(workspace: string): void {
    if (!this.#closed) for (const listener of this.#listeners) listener(workspace);
    const waiters = this.#waiters.get(workspace);
    if (!waiters) return;
    this.#waiters.delete(workspace);
    for (const wake of waiters) wake();
  }

  /** Resolves on the next change of `workspace`, or after `ms`, whichever comes first. */
  wait(workspace: string, ms: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(workspace) ?? new Set();
      this.#waiters.set(workspace, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  /** Releases every waiter (engine close). */
  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    for (const workspace of [...this.#waiters.keys()]) this.#wake(workspace);
  }
}
