/** Sizes, times, columns and diff colours as people see them. */
import { describe, expect, it } from 'vitest';
import { colorDiff, humanDuration, humanSize, shortTime, table } from './format.js';

describe('format', () => {
  it('prints sizes in binary units', () => {
    expect(humanSize(0)).toBe('0 B');
    expect(humanSize(1023)).toBe('1023 B');
    expect(humanSize(1536)).toBe('1.5 KiB');
    expect(humanSize(3 * 1024 * 1024)).toBe('3.0 MiB');
    expect(humanSize(150 * 1024 ** 3)).toBe('150 GiB');
  });

  it('prints durations in their two largest units', () => {
    expect(humanDuration(-5000)).toBe('0s');
    expect(humanDuration(45_400)).toBe('45s');
    expect(humanDuration(725_000)).toBe('12m 5s');
    expect(humanDuration(720_000)).toBe('12m');
    expect(humanDuration((3 * 3600 + 20 * 60 + 7) * 1000)).toBe('3h 20m');
    expect(humanDuration((2 * 86_400 + 4 * 3600) * 1000)).toBe('2d 4h');
  });

  it('shortens ISO times, keeping UTC', () => {
    expect(shortTime('2025-12-02T14:22:05.123Z')).toBe('2025-12-02 14:22:05Z');
  });

  it('aligns columns without trailing blanks', () => {
    expect(
      table(
        [
          ['-', '5 B', 'a'],
          ['d', '12.0 KiB', 'bb'],
        ],
        ['left', 'right', 'left'],
      ),
    ).toEqual(['-       5 B  a', 'd  12.0 KiB  bb']);
  });

  it('colours only changed lines, and only when asked', () => {
    const diff = '--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n';
    expect(colorDiff(diff, false)).toBe(diff);
    expect(colorDiff(diff, true)).toBe(
      '--- a\n+++ b\n@@ -1 +1 @@\n\u001b[31m-x\u001b[0m\n\u001b[32m+y\u001b[0m\n',
    );
  });
});
