/**
 * API keys: `satchel_<id>_<secret>`. The id finds the row; the secret (32 random bytes) is
 * stored only as its SHA-256 — the secret is high-entropy, so a slow password hash buys nothing.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'satchel_';
const KEY_PATTERN = /^satchel_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface NewKey {
  readonly id: string;
  readonly key: string;
  readonly secretHash: string;
}

export function generateKey(): NewKey {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, key: `${KEY_PREFIX}${id}_${secret}`, secretHash: sha256(secret) };
}

/** The id and secret of a well-formed key, or null. */
export function parseKey(key: string): { id: string; secret: string } | null {
  const match = KEY_PATTERN.exec(key);
  const [, id, secret] = match ?? [];
  return id && secret ? { id, secret } : null;
}

/** Compares in constant time, so response timing says nothing about the stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(sha256(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** One-time claim codes of ownership transfers, stored hashed like keys. */
export function generateClaimCode(): { code: string; codeHash: string } {
  const code = `claim_${randomBytes(24).toString('base64url')}`;
  return { code, codeHash: sha256(code) };
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
