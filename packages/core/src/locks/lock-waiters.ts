/** The in-process queue of lock requests that wait: arrival order, woken on release and expiry. */
import { SatchelError } from '@satchel/client/errors.js';
import { LocalSignals, type Signals } from '../store/signals.js';
import { conflicts, type LockClaim } from './lock-rules.js';

export type WaitAttempt<T> =
  | { readonly done: true; readonly value: T }
  | { readonly done: false; readonly retryAt: number };

interface Waiter {
  readonly workspaceId: string;
  readonly claim: LockClaim;
  wakeAt: number;
  wake: (() => void) | null;
  /** A wake-up that arrived while the waiter was busy trying; the next sleep returns at once. */
  signalled: boolean;
}

/**
 * In-process queue of lock requests that wait, per workspace, in arrival order. A waiter retries
 * when a lock in its workspace is released, when the earliest lease it waits on expires (one
 * timer for all waiters, re-armed as they come and go) and, as a safety net for locks released
 * by another process whose signal was lost, every `recheckMs` (default: the signals' own, 1 s
 * unless they say otherwise). Nothing polls faster than that.
 *
 * Lock wake-ups between nodes travel as `lock` signals (store/signals.ts). Contract: the
 * store decides who holds a lock, never the waiters; a waiter is only ever woken early (a spurious
 * wake-up re-runs `attempt`, which re-reads the store), and is never left asleep past
 * `recheckMs` or past the earliest expiry it waits on, so a release on another node costs at
 * most `recheckMs` of latency when its signal is lost. Waiters of one workspace try in arrival
 * order within a node; between nodes, whoever retries first after a release wins.
 */
export class LockWaiters {
  readonly #clock: () => number;
  readonly #recheckMs: number | undefined;
  readonly #queues = new Map<string, Waiter[]>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #timerAt = Number.POSITIVE_INFINITY;
  #safety: ReturnType<typeof setInterval> | null = null;
  #closed = false;

  readonly #signals: Signals;
  readonly #unsubscribe: () => void;

  /**
   * `clock` must be the engine's clock (`ctx.clock`): deadlines and expiries are in its time.
   * Releases travel as `lock` signals, so waiters on other nodes wake at once too.
   */
  constructor(options: { clock?: () => number; recheckMs?: number; signals?: Signals } = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#recheckMs = options.recheckMs;
    this.#signals = options.signals ?? new LocalSignals();
    this.#unsubscribe = this.#signals.subscribe((signal) => {
      if (signal.kind === 'lock') this.notify(signal.workspaceId);
      else if (signal.kind === 'resync') this.recheck();
    });
  }

  /** After a lock of the workspace was released or its lease shortened: wakes every node. */
  released(workspaceId: string): void {
    this.#signals.publish({ kind: 'lock', workspaceId });
  }

  /**
   * Runs `attempt` until it is done or the clock reaches `deadline`. It only runs while no
   * earlier waiter of the workspace has a conflicting claim, so a later request never overtakes
   * an earlier one; a failed attempt names when to retry (an expiry). Returns the value, or null
   * at the deadline. Rethrows what `attempt` throws; INTERNAL if closed while waiting.
   */
  async serve<T>(
    workspaceId: string,
    claim: LockClaim,
    deadline: number,
    attempt: () => Promise<WaitAttempt<T>>,
  ): Promise<T | null> {
    const waiter: Waiter = { workspaceId, claim, wakeAt: deadline, wake: null, signalled: false };
    const queue = this.#queues.get(workspaceId) ?? [];
    queue.push(waiter);
    this.#queues.set(workspaceId, queue);
    this.#safety ??= unref(
      setInterval(() => this.recheck(), this.#recheckMs ?? this.#signals.recheckMs),
    );
    try {
      for (;;) {
        if (this.#closed) throw closedError(claim.path);
        let retryAt = deadline;
        if (!this.#ahead(workspaceId, claim, waiter)) {
          // Cleared before trying, so a release that lands during the attempt is not lost.
          waiter.signalled = false;
          const result = await attempt();
          if (result.done) return result.value;
          retryAt = Math.min(result.retryAt, deadline);
        }
        if (this.#clock() >= deadline) return null;
        await this.#sleep(waiter, retryAt);
      }
    } finally {
      this.#leave(waiter);
    }
  }

  /** Wakes the waiters of a workspace to re-check now: after a release there, or a shorter lease. */
  notify(workspaceId: string): void {
    for (const waiter of this.#queues.get(workspaceId) ?? []) wakeUp(waiter);
    this.#arm();
  }

  /** Wakes every waiter: after the clock moved, or when another process may have released a lock. */
  recheck(): void {
    for (const workspaceId of this.#queues.keys()) this.notify(workspaceId);
  }

  /** Stops the timers; waiting requests fail with INTERNAL. Call before closing the store. */
  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    this.recheck();
    this.#stopTimers();
  }

  /**
   * The claim of the earliest waiting request that conflicts with `claim`: it goes first. Requests
   * that do not wait ask this too, so a stream of small locks cannot starve a waiting tree lock.
   */
  ahead(workspaceId: string, claim: LockClaim): LockClaim | undefined {
    return this.#ahead(workspaceId, claim, null);
  }

  #ahead(workspaceId: string, claim: LockClaim, stop: Waiter | null): LockClaim | undefined {
    for (const other of this.#queues.get(workspaceId) ?? []) {
      if (other === stop) return undefined;
      if (conflicts(other.claim, claim)) return other.claim;
    }
    return undefined;
  }

  #sleep(waiter: Waiter, wakeAt: number): Promise<void> {
    if (waiter.signalled || this.#closed) {
      waiter.signalled = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      waiter.wakeAt = wakeAt;
      waiter.wake = resolve;
      this.#arm();
    });
  }

  #leave(waiter: Waiter): void {
    const queue = this.#queues.get(waiter.workspaceId) ?? [];
    const rest = queue.filter((w) => w !== waiter);
    if (rest.length > 0) this.#queues.set(waiter.workspaceId, rest);
    else this.#queues.delete(waiter.workspaceId);
    if (this.#queues.size === 0) this.#stopTimers();
    // Whoever queued behind this waiter may be at the front now.
    else this.notify(waiter.workspaceId);
  }

  /** Keeps the one timer set for the earliest wake-up among sleeping waiters. */
  #arm(): void {
    let next = Number.POSITIVE_INFINITY;
    for (const queue of this.#queues.values()) {
      for (const w of queue) if (w.wake && w.wakeAt < next) next = w.wakeAt;
    }
    if (next === this.#timerAt || this.#closed) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = next;
    if (next === Number.POSITIVE_INFINITY) return;
    const delay = Math.min(Math.max(1, next - this.#clock()), 2 ** 31 - 1);
    this.#timer = unref(setTimeout(() => this.#fire(next), delay));
  }

  #fire(due: number): void {
    this.#timer = null;
    this.#timerAt = Number.POSITIVE_INFINITY;
    // Waking everyone due by the armed time (not only by the clock) means a frozen test clock
    // makes waiters retry at that pace rather than spin.
    const now = Math.max(this.#clock(), due);
    for (const queue of this.#queues.values()) {
      for (const w of queue) if (w.wake && w.wakeAt <= now) wakeUp(w);
    }
    this.#arm();
  }

  #stopTimers(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#safety) clearInterval(this.#safety);
    this.#timer = null;
    this.#timerAt = Number.POSITIVE_INFINITY;
    this.#safety = null;
  }
}

function wakeUp(waiter: Waiter): void {
  const wake = waiter.wake;
  waiter.wake = null;
  if (wake) wake();
  else waiter.signalled = true;
}

function unref<T extends { unref(): unknown }>(timer: T): T {
  timer.unref();
  return timer;
}

function closedError(path: string): SatchelError {
  return new SatchelError('INTERNAL', `the engine closed while waiting for a lock on ${path}`, {
    path,
  });
}
