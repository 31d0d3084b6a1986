/**
 * Wake-up signals between the nodes that share one database: "something changed here, re-read
 * the store". A signal carries no data and may be lost (a listener that is reconnecting misses
 * what was sent meanwhile), so every receiver also re-reads on a timer; a signal only shortens
 * the wait. Receivers must tolerate duplicates and signals from their own node.
 *
 * One process: `LocalSignals` (delivery is synchronous, within the publishing call). Several
 * processes on one embedded database: `DataDirSignals` (store/data-dir-signals.ts), a watched
 * file beside it. Several nodes on PostgreSQL: `PgSignals` (store/metadata/postgres-signals.ts)
 * over LISTEN/NOTIFY.
 */

export type Signal =
  /** A commit changed the workspace of this name (change feed, SSE, MCP subscriptions, search). */
  | { readonly kind: 'change'; readonly workspace: string }
  /** A lock of the workspace with this id was released or its lease shortened. */
  | { readonly kind: 'lock'; readonly workspaceId: string }
  /** A key was revoked: forget the keys authenticated so far (auth/key-cache.ts). */
  | { readonly kind: 'access' }
  /** Signals may have been lost (a reconnect): everyone re-reads now. */
  | { readonly kind: 'resync' };

/** How often receivers re-read anyway unless their signals say otherwise (ms). */
export const DEFAULT_RECHECK_MS = 1000;

export interface Signals {
  /**
   * How often a receiver re-reads the store while it waits, as the safety net for lost signals
   * (ms). Read at each wait: it may grow once signals work, or shrink when they stop working.
   */
  readonly recheckMs: number;
  /**
   * Tells every node, this one included, after the commit it is about is durable. Never throws
   * and never waits: a signal that cannot be sent costs latency, not correctness.
   */
  publish(signal: Signal): void;
  /** Calls `listener` for every signal from any node until the returned function is called. */
  subscribe(listener: (signal: Signal) => void): () => void;
  /** Stops listening; later publishes reach this node's listeners only. */
  close(): Promise<void>;
}

/** Listeners of one process; `PgSignals` builds on it for what arrives from other nodes. */
export class LocalSignals implements Signals {
  readonly #listeners = new Set<(signal: Signal) => void>();

  get recheckMs(): number {
    return DEFAULT_RECHECK_MS;
  }

  publish(signal: Signal): void {
    this.deliver(signal);
  }

  /** Hands `signal` to this process's listeners (synchronously, so they must only schedule). */
  deliver(signal: Signal): void {
    for (const listener of this.#listeners) listener(signal);
  }

  subscribe(listener: (signal: Signal) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {}
}

/** One signal as sent between nodes: JSON naming the sending node (`node`), never data. */
export function encodeSignal(signal: Signal, node: string): string {
  return JSON.stringify({ ...signal, node });
}

/** A signal `encodeSignal` wrote, with its node; null for anything else (never throws). */
export function decodeSignal(payload: string | undefined): { signal: Signal; node: string } | null {
  try {
    const value = JSON.parse(payload ?? '') as Record<string, unknown>;
    const node = value.node;
    if (typeof node !== 'string') return null;
    if (value.kind === 'change' && typeof value.workspace === 'string') {
      return { signal: { kind: 'change', workspace: value.workspace }, node };
    }
    if (value.kind === 'lock' && typeof value.workspaceId === 'string') {
      return { signal: { kind: 'lock', workspaceId: value.workspaceId }, node };
    }
    if (value.kind === 'access') return { signal: { kind: 'access' }, node };
    return null;
  } catch {
    return null;
  }
}
