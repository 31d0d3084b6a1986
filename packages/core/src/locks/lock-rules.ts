/** When two locks (or a lock and a write) touch the same paths: pure rules, no I/O. */
import { isWithin } from '@satchel/client/paths.js';

export type LockScope = 'file' | 'tree';
export type LockMode = 'exclusive' | 'shared';

/** What a lock is on: one path (`file`), or a path and everything beneath it (`tree`). */
export interface LockTarget {
  readonly path: string;
  readonly scope: LockScope;
}

export interface LockClaim extends LockTarget {
  readonly mode: LockMode;
}

/**
 * True when `lock` protects `path`: a file lock protects exactly its path, a tree lock its path
 * and every path beneath it. Paths must be canonical (`normalizePath`), so "/a" never covers "/a-b".
 */
export function covers(lock: LockTarget, path: string): boolean {
  return lock.scope === 'tree' ? isWithin(path, lock.path) : path === lock.path;
}

/** True when some path is protected by both targets. Symmetric. */
export function overlaps(a: LockTarget, b: LockTarget): boolean {
  return covers(a, b.path) || covers(b, a.path);
}

/**
 * True when `requested` cannot be granted while `existing` is live: they overlap and at least one
 * is exclusive. Who holds them does not matter here; callers decide about same-holder locks.
 */
export function conflicts(existing: LockClaim, requested: LockClaim): boolean {
  if (existing.mode === 'shared' && requested.mode === 'shared') return false;
  return overlaps(existing, requested);
}
