import { describe, expect, it } from 'vitest';
import { excerptOf, linesOf, relocate } from './comment-anchors.js';

const before = linesOf('a\nb\nc\nd\ne\n');

describe('relocate', () => {
  it('keeps a range whose lines did not change', () => {
    expect(relocate(before, before, 2, 3)).toEqual({ startLine: 2, endLine: 3 });
  });

  it('moves a range down when lines are inserted above it and up when removed', () => {
    expect(relocate(before, linesOf('x\ny\na\nb\nc\nd\ne\n'), 2, 3)).toEqual({
      startLine: 4,
      endLine: 5,
    });
    expect(relocate(before, linesOf('b\nc\nd\ne\n'), 2, 3)).toEqual({ startLine: 1, endLine: 2 });
  });

  it('ignores changes below the range', () => {
    expect(relocate(before, linesOf('a\nb\nc\nZ\n'), 1, 3)).toEqual({ startLine: 1, endLine: 3 });
  });

  it('is outdated when a line of the range changes, goes, or lines come between', () => {
    expect(relocate(before, linesOf('a\nB\nc\nd\ne\n'), 2, 3)).toBeNull();
    expect(relocate(before, linesOf('a\nc\nd\ne\n'), 2, 3)).toBeNull();
    expect(relocate(before, linesOf('a\nb\nnew\nc\nd\ne\n'), 2, 3)).toBeNull();
    expect(relocate(before, [], 1, 1)).toBeNull();
  });

  it('keeps a range when lines are inserted right before or after it', () => {
    expect(relocate(before, linesOf('a\nnew\nb\nc\nnew\nd\ne\n'), 2, 3)).toEqual({
      startLine: 3,
      endLine: 4,
    });
  });
});

describe('excerptOf', () => {
  it('takes the anchored lines, bounded', () => {
    expect(excerptOf(before, 2, 3)).toBe('b\nc');
    expect(excerptOf(['x'.repeat(5000)], 1, 1)).toHaveLength(2001);
  });
});
