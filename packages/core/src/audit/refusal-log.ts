/**
 * The server-level log of calls refused before they reach any workspace: a missing, unknown,
 * revoked or expired key (UNAUTHENTICATED) and a key over its rate limit (RATE_LIMITED). Frontends
 * report them with `engine.auditRefusal(…)`; what is recorded, and how much, is decided here.
 *
 * Bounded (a flood must not fill the disk): per (source, code), at most `perWindow` entries in
 * each window of `windowMs`; the refusals beyond that are counted and recorded as one summary
 * entry, "<n> more refused", when the window ends (or the engine closes). So whatever the request
 * rate, each (source, code) pair adds at most perWindow + 1 entries per window.
 */
import { parseKey } from '../auth/keys.js';
import type { AuditInput } from './audit-chain.js';

/** A call a frontend refused before it reached the engine as anyone. */
export interface Refusal {
  /** Which frontend refused it: `rest` (the `/v1` API), `mcp` (`/mcp`), … Bounded set. */
  readonly source: string;
  readonly code: 'UNAUTHENTICATED' | 'RATE_LIMITED' | 'NOT_FOUND';
  /** What was asked, for the entry's action: e.g. `GET /v1/workspaces/w` (no query string). */
  readonly action: string;
  /**
   * The key as presented (null or absent: none). Only its public id is recorded (actor
   * `key:<id>`), never the secret; anything that is not a well-formed key is `anonymous`.
   */
  readonly key?: string | null;
  /** Who was refused, when already known (a rate-limited call): wins over `key`. */
  readonly actor?: string;
  /** The `Satchel-Session` label the call carried, if any. */
  readonly session?: string | null;
}

export interface RefusalLogOptions {
  /** Queues an entry (the audit log's `record`). */
  readonly record: (input: AuditInput) => Promise<void>;
  readonly clock: () => number;
  /** Entries per (source, code) per window before refusals are only counted: default 20. */
  readonly perWindow?: number;
  /** Length of a window: default 60,000 ms. */
  readonly windowMs?: number;
}

interface Window {
  readonly source: string;
  readonly code: Refusal['code'];
  readonly start: number;
  recorded: number;
  suppressed: number;
  timer: NodeJS.Timeout | null;
}

const MAX_ACTION = 300;
const MAX_SOURCE = 40;

/** Who a refused call was, without its secret. */
export function refusedActor(refusal: Refusal): string {
  if (refusal.actor !== undefined) return refusal.actor;
  const key = typeof refusal.key === 'string' ? parseKey(refusal.key.trim()) : null;
  return key ? `key:${key.id}` : 'anonymous';
}

/** Coalesces refusals into a bounded number of audit entries (see the module header). */
export class RefusalLog {
  readonly #record: RefusalLogOptions['record'];
  readonly #clock: () => number;
  readonly #perWindow: number;
  readonly #windowMs: number;
  readonly #windows = new Map<string, Window>();

  constructor(options: RefusalLogOptions) {
    this.#record = options.record;
    this.#clock = options.clock;
    this.#perWindow = options.perWindow ?? 20;
    this.#windowMs = options.windowMs ?? 60_000;
  }

  /** Records `refusal` (or counts it towards its window's summary). Never throws. */
  refuse(refusal: Refusal): void {
    const now = this.#clock();
    const source = refusal.source.slice(0, MAX_SOURCE) || 'unknown';
    const id = `${source}\u0000${refusal.code}`;
    let window = this.#windows.get(id);
    if (window && now - window.start >= this.#windowMs) {
      this.#end(id, window);
      window = undefined;
    }
    if (!window) {
      window = { source, code: refusal.code, start: now, recorded: 0, suppressed: 0, timer: null };
      this.#windows.set(id, window);
    }
    if (window.recorded < this.#perWindow) {
      window.recorded += 1;
      void this.#record({
        time: now,
        actor: refusedActor(refusal),
        session: refusal.session?.slice(0, 200) ?? null,
        action: refusal.action.slice(0, MAX_ACTION) || 'unknown',
        workspace: null,
        workspaceId: null,
        path: null,
        seq: null,
        outcome: 'refused',
        code: refusal.code,
      });
      return;
    }
    window.suppressed += 1;
    if (window.timer === null) {
      const current = window;
      const left = Math.max(0, current.start + this.#windowMs - now);
      // The summary is written when the window ends even if no refusal follows; unref'd, so
      // it never keeps a process alive (close() writes it then).
      current.timer = setTimeout(() => this.#end(id, current), left);
      current.timer.unref();
    }
  }

  /** Writes the summaries of every open window (engine close). */
  close(): void {
    for (const [id, window] of [...this.#windows]) this.#end(id, window);
  }

  #end(id: string, window: Window): void {
    if (window.timer !== null) clearTimeout(window.timer);
    window.timer = null;
    if (this.#windows.get(id) === window) this.#windows.delete(id);
    if (window.suppressed === 0) return;
    const count = window.suppressed;
    window.suppressed = 0;
    void this.#record({
      time: this.#clock(),
      actor: 'satchel',
      session: null,
      action: `${count} more refused (${window.source})`,
      workspace: null,
      workspaceId: null,
      path: null,
      seq: null,
      outcome: 'refused',
      code: window.code,
    });
  }
}
