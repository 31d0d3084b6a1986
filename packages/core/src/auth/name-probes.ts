/**
 * Throttles probing for workspace names. Names are one global namespace, so creating a taken
 * name must fail, and the failure tells the caller the name exists — even for a workspace it may
 * not see. That existence is not secret by design (docs/security.md), but scanning for names is
 * made slow: each CONFLICT on a name the caller cannot see spends its principal's budget, and once
 * the budget is spent every create is RATE_LIMITED until the window ends (so the refusal says
 * nothing about the name). Conflicts on workspaces the caller can see cost nothing: "create,
 * ignore the conflict" on one's own workspace stays free.
 *
 * The budget is per principal, not per key, since a principal can mint keys. It is counted in the
 * engine's rate budgets (rate-budgets.ts), so the nodes of one database share it.
 */
import { SatchelError } from '@satchel/client/errors.js';
import type { RateBudgets } from './rate-budgets.js';

export interface NameProbeLimits {
  /** Conflicts on hidden names a principal may cause per window. */
  readonly limit: number;
  readonly windowSeconds: number;
}

/** A person who mistypes a taken name now and then never notices; a scan gets 20 names an hour. */
export const DEFAULT_NAME_PROBE_LIMITS: NameProbeLimits = { limit: 20, windowSeconds: 3600 };

export class NameProbes {
  constructor(
    private readonly limits: NameProbeLimits,
    private readonly budgets: RateBudgets,
  ) {}

  #key(principalId: string): string {
    return `name-probes:${principalId}`;
  }

  /** Throws RATE_LIMITED (with `retryAfter` seconds) once `principalId` has spent its budget. */
  check(principalId: string): void {
    const { limit, windowSeconds } = this.limits;
    const { hits, resetAt } = this.budgets.peek(this.#key(principalId), windowSeconds * 1000);
    if (hits < limit) return;
    const retryAfter = Math.max(1, Math.ceil((resetAt - this.budgets.now()) / 1000));
    throw new SatchelError(
      'RATE_LIMITED',
      `too many attempts to create workspaces whose names are taken (${limit} per ${windowSeconds} s); retry in ${retryAfter} s`,
      { reason: 'name_probes', limit, windowSeconds, retryAfter },
    );
  }

  /** Spends one unit of `principalId`'s budget: it hit a name it may not see. */
  spend(principalId: string): void {
    this.budgets.countHit(this.#key(principalId), this.limits.windowSeconds * 1000);
  }
}
