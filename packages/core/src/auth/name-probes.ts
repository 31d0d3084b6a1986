/**
 * Throttles probing for workspace names. Names are one global namespace, so creating a taken
 * name must fail, and the failure tells the caller the name exists — even for a workspace it may
 * not see. That existence is not secret by design (docs/security.md), but scanning for names is
 * made slow: each CONFLICT on a name the caller cannot see spends its principal's budget, and once
 * the budget is spent every create is RATE_LIMITED until the window ends (so the refusal says
 * nothing about the name). Conflicts on workspaces the caller can see cost nothing: "create,
 * ignore the conflict" on one's own workspace stays free.
 *
 * The budget is per principal, not per key, since a principal can mint keys. Counts live in this
 * process's memory; several API nodes each keep their own (a multi-node deployment that needs
 * one budget moves this map into the shared database).
 */
import { SatchelError } from '@satchel/client/errors.js';

export interface NameProbeLimits {
  /** Conflicts on hidden names a principal may cause per window. */
  readonly limit: number;
  readonly windowSeconds: number;
}

/** A person who mistypes a taken name now and then never notices; a scan gets 20 names an hour. */
export const DEFAULT_NAME_PROBE_LIMITS: NameProbeLimits = { limit: 20, windowSeconds: 3600 };

/** Principals tracked at once before expired windows are swept. */
const SWEEP_AT = 10_000;

export class NameProbes {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limits: NameProbeLimits,
    private readonly clock: () => number,
  ) {}

  #window(principalId: string): { start: number; count: number } | undefined {
    const found = this.#windows.get(principalId);
    if (found && this.clock() - found.start >= this.limits.windowSeconds * 1000) {
      this.#windows.delete(principalId);
      return undefined;
    }
    return found;
  }

  /** Throws RATE_LIMITED (with `retryAfter` seconds) once `principalId` has spent its budget. */
  check(principalId: string): void {
    const window = this.#window(principalId);
    if (window === undefined || window.count < this.limits.limit) return;
    const { limit, windowSeconds } = this.limits;
    const retryAfter = Math.max(
      1,
      Math.ceil((window.start + windowSeconds * 1000 - this.clock()) / 1000),
    );
    throw new SatchelError(
      'RATE_LIMITED',
      `too many attempts to create workspaces whose names are taken (${limit} per ${windowSeconds} s); retry in ${retryAfter} s`,
      { reason: 'name_probes', limit, windowSeconds, retryAfter },
    );
  }

  /** Spends one unit of `principalId`'s budget: it hit a name it may not see. */
  spend(principalId: string): void {
    const now = this.clock();
    if (this.#windows.size >= SWEEP_AT) {
      const span = this.limits.windowSeconds * 1000;
      for (const [id, w] of this.#windows) if (now - w.start >= span) this.#windows.delete(id);
    }
    const window = this.#window(principalId);
    if (window) window.count += 1;
    else this.#windows.set(principalId, { start: now, count: 1 });
  }
}
