/**
 * Keys this node authenticated recently, so a request does not read its key, the key's lineage
 * and its principal from the database again: remembered for a short window (default 2 s).
 *
 * Revoking a key forgets every entry on this node at once, and — through the `access` signal —
 * on every node of the same database (store/signals.ts). Signals can be lost; the window is the
 * bound: a node that missed one accepts a revoked key for at most `windowMs` more. An entry never
 * outlives the earliest expiry in its key's lineage, and a lookup that started before a
 * revocation is not remembered (the generation count), so a stale read cannot refill the cache.
 */

import type { Actor } from '../kernel/actor.js';
import type { Signals } from '../store/signals.js';
import { secretMatches } from './keys.js';

export const DEFAULT_KEY_CACHE_MS = 2000;
const MAX_ENTRIES = 10_000;

/** What authenticating a key found: its actor, its secret's hash, its lineage's expiry. */
export interface Credentials {
  readonly actor: Actor;
  readonly secretHash: string;
  readonly expiresAt: number | null;
}

interface Entry {
  readonly actor: Actor;
  readonly secretHash: string;
  readonly until: number;
}

export class KeyCache {
  readonly #entries = new Map<string, Entry>();
  readonly #signals: Signals;
  readonly #unsubscribe: () => void;
  #generation = 0;

  constructor(
    signals: Signals,
    readonly windowMs: number = DEFAULT_KEY_CACHE_MS,
  ) {
    this.#signals = signals;
    this.#unsubscribe = signals.subscribe((signal) => {
      if (signal.kind === 'access' || signal.kind === 'resync') this.#forget();
    });
  }

  /**
   * The actor of key `id` with secret `secret`: remembered, or found by `load` (which throws
   * UNAUTHENTICATED for a key it refuses; refusals are never remembered).
   */
  async actor(
    id: string,
    secret: string,
    now: number,
    load: () => Promise<Credentials>,
  ): Promise<Actor> {
    const hit = this.#entries.get(id);
    if (hit !== undefined && now < hit.until && secretMatches(secret, hit.secretHash)) {
      return hit.actor;
    }
    const generation = this.#generation;
    const found = await load();
    if (generation === this.#generation && this.windowMs > 0) {
      this.#entries.delete(id);
      if (this.#entries.size >= MAX_ENTRIES) {
        const oldest = this.#entries.keys().next();
        if (!oldest.done) this.#entries.delete(oldest.value);
      }
      const until = Math.min(now + this.windowMs, found.expiresAt ?? Number.POSITIVE_INFINITY);
      this.#entries.set(id, { actor: found.actor, secretHash: found.secretHash, until });
    }
    return found.actor;
  }

  /** A key was revoked (after its commit): forget every key here, and tell the other nodes. */
  revoked(): void {
    this.#forget();
    this.#signals.publish({ kind: 'access' });
  }

  close(): void {
    this.#unsubscribe();
    this.#forget();
  }

  #forget(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
