/** The overlap and conflict rules, case by case. */
import { describe, expect, it } from 'vitest';
import { conflicts, covers, type LockClaim, type LockTarget, overlaps } from './lock-rules.js';

const file = (path: string): LockTarget => ({ path, scope: 'file' });
const tree = (path: string): LockTarget => ({ path, scope: 'tree' });
const x = (target: LockTarget): LockClaim => ({ ...target, mode: 'exclusive' });
const s = (target: LockTarget): LockClaim => ({ ...target, mode: 'shared' });

describe('covers', () => {
  it('a tree lock covers its path and its whole subtree', () => {
    expect(covers(tree('/a'), '/a')).toBe(true);
    expect(covers(tree('/a'), '/a/b')).toBe(true);
    expect(covers(tree('/a'), '/a/b/c/d')).toBe(true);
    expect(covers(tree('/'), '/anything/at/all')).toBe(true);
  });

  it('a file lock covers only its own path', () => {
    expect(covers(file('/a'), '/a')).toBe(true);
    expect(covers(file('/a'), '/a/b')).toBe(false);
    expect(covers(file('/a/b'), '/a')).toBe(false);
  });

  it('a prefix that is not a path segment is not covered', () => {
    expect(covers(tree('/a'), '/a-b')).toBe(false);
    expect(covers(tree('/a'), '/ab/c')).toBe(false);
  });
});

describe('overlaps', () => {
  it('a file beneath a tree lock overlaps it, in either order', () => {
    expect(overlaps(tree('/a'), file('/a/b/c'))).toBe(true);
    expect(overlaps(file('/a/b/c'), tree('/a'))).toBe(true);
  });

  it('nested trees overlap; the same path overlaps whatever the scopes', () => {
    expect(overlaps(tree('/a'), tree('/a/b'))).toBe(true);
    expect(overlaps(file('/a'), file('/a'))).toBe(true);
    expect(overlaps(file('/a'), tree('/a'))).toBe(true);
  });

  it('siblings do not overlap', () => {
    expect(overlaps(file('/a/x'), file('/a/y'))).toBe(false);
    expect(overlaps(tree('/a/x'), tree('/a/y'))).toBe(false);
    expect(overlaps(tree('/a/x'), file('/a/y'))).toBe(false);
  });

  it('"/a" and "/a-b" do not overlap', () => {
    expect(overlaps(tree('/a'), tree('/a-b'))).toBe(false);
    expect(overlaps(tree('/a'), file('/a-b/c'))).toBe(false);
  });

  it('a file lock on a directory does not reach its children', () => {
    expect(overlaps(file('/a'), file('/a/b'))).toBe(false);
  });
});

describe('conflicts', () => {
  it('a file lock under an exclusively locked tree conflicts', () => {
    expect(conflicts(x(tree('/a')), x(file('/a/b')))).toBe(true);
    expect(conflicts(x(tree('/a')), s(file('/a/b')))).toBe(true);
    expect(conflicts(s(file('/a/b')), x(tree('/a')))).toBe(true);
  });

  it('siblings do not conflict, even exclusively', () => {
    expect(conflicts(x(file('/a/x')), x(file('/a/y')))).toBe(false);
    expect(conflicts(x(tree('/a')), x(tree('/a-b')))).toBe(false);
  });

  it('shared with shared is fine, also nested', () => {
    expect(conflicts(s(file('/a')), s(file('/a')))).toBe(false);
    expect(conflicts(s(tree('/a')), s(file('/a/b')))).toBe(false);
  });

  it('shared with exclusive conflicts, in either order', () => {
    expect(conflicts(s(file('/a')), x(file('/a')))).toBe(true);
    expect(conflicts(x(file('/a')), s(file('/a')))).toBe(true);
  });
});
