/**
 * Keys minted from keys: a key works only while every key it was minted from works, so a child
 * never outlives its parent, whoever either key is for.
 */
import { SatchelError } from '@satchel/client/errors.js';
import { MAX_KEY_DEPTH } from '../store/metadata/access-queries.js';
import type { KeyChainLink, KeyRecord } from '../store/metadata/records.js';

export function unauthenticated(reason: string): SatchelError {
  return new SatchelError('UNAUTHENTICATED', `invalid API key: ${reason}`, { reason });
}

export interface Lineage {
  /** The key itself. */
  readonly key: KeyRecord;
  /** Generations below its root key: 0 for a key no key minted. */
  readonly depth: number;
  /** The earliest expiry along the chain, the key's own included (ms); null if none expires. */
  readonly expiresAt: number | null;
}

/**
 * Checks a chain read by `keyChain` at `now`: the key and every key it descends from must be
 * neither revoked nor expired, and the chain must reach a root key within MAX_KEY_DEPTH.
 * Throws UNAUTHENTICATED saying which link failed; the caller checks the secret first, so
 * these reasons are only told to whoever holds the key.
 */
export function checkLineage(chain: readonly KeyChainLink[], now: number): Lineage {
  const [key] = chain;
  if (!key) throw unauthenticated('unknown key');
  let expiresAt: number | null = null;
  for (const link of chain) {
    const own = link.depth === 0;
    if (link.revokedAt !== null) {
      throw unauthenticated(own ? 'the key was revoked' : 'a key it was minted from was revoked');
    }
    if (link.expiresAt !== null) {
      const expiry = link.expiresAt;
      if (expiry <= now) {
        throw unauthenticated(own ? 'the key expired' : 'a key it was minted from expired');
      }
      expiresAt = expiresAt === null ? expiry : Math.min(expiresAt, expiry);
    }
  }
  const root = chain[chain.length - 1] ?? key;
  if (root.parentId !== null) {
    // Fail closed: an ancestor we did not read could be revoked.
    throw unauthenticated(
      root.depth >= MAX_KEY_DEPTH
        ? `it is minted more than ${MAX_KEY_DEPTH} keys deep`
        : 'a key it was minted from no longer exists',
    );
  }
  return { key, depth: root.depth, expiresAt };
}

/**
 * The expiry of a key minted under `parent`: what was asked for, but never later than the
 * parent's own (effective) expiry; an absent request means "as long as the parent".
 */
export function childExpiry(requested: number | null, parent: Lineage | null): number | null {
  const limit = parent?.expiresAt ?? null;
  if (limit === null) return requested;
  return requested === null ? limit : Math.min(requested, limit);
}

/** FORBIDDEN when a key minted under `parent` would be deeper than authentication checks. */
export function checkMintDepth(parent: Lineage | null): void {
  if (parent && parent.depth >= MAX_KEY_DEPTH) {
    throw new SatchelError(
      'FORBIDDEN',
      `a key cannot be minted more than ${MAX_KEY_DEPTH} keys deep; mint it from a key nearer the root`,
      { reason: 'key_depth' },
    );
  }
}
