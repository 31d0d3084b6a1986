/** Range and entity-tag parsing at the edges RFC 9110 defines. */
import { describe, expect, it } from 'vitest';
import { HttpError } from '../problem.js';
import { parseTags } from './conditional.js';
import { contentRange, selectRange } from './range.js';

describe('selectRange', () => {
  it('selects single ranges, clamping the end to the size', () => {
    expect(selectRange('bytes=0-0', 10)).toEqual({ start: 0, end: 1 });
    expect(selectRange('Bytes = 3 - ', 10)).toEqual({ start: 3, end: 10 });
    expect(selectRange('bytes=9-99999999999999999999', 10)).toEqual({ start: 9, end: 10 });
    expect(selectRange('bytes=-1', 10)).toEqual({ start: 9, end: 10 });
    expect(contentRange({ start: 9, end: 10 }, 10)).toBe('bytes 9-9/10');
  });

  it('ignores what it may ignore', () => {
    for (const header of [
      undefined,
      'bytes=',
      'bytes=-',
      'bytes=3-1',
      'bytes=1-2,3-4',
      'lines=1-2',
    ]) {
      expect(selectRange(header, 10), String(header)).toBeNull();
    }
  });

  it('throws 416 for ranges past the end, and for any range of an empty file', () => {
    for (const [header, size] of [
      ['bytes=10-', 10],
      ['bytes=0-', 0],
      ['bytes=-5', 0],
    ] as const) {
      try {
        selectRange(header, size);
        expect.unreachable(header);
      } catch (error) {
        expect(error).toBeInstanceOf(HttpError);
        expect((error as HttpError).status).toBe(416);
        expect((error as HttpError).headers['Content-Range']).toBe(`bytes */${size}`);
      }
    }
  });
});

describe('parseTags', () => {
  it('parses *, strong and weak tags, with optional whitespace', () => {
    expect(parseTags(' * ', 'If-Match')).toBe('*');
    expect(parseTags('"1", W/"2" ,"x"', 'If-Match')).toEqual([
      { weak: false, opaque: '1' },
      { weak: true, opaque: '2' },
      { weak: false, opaque: 'x' },
    ]);
  });

  it('refuses unquoted or broken lists, naming the header', () => {
    for (const value of ['1', '"1', '"1" "2"', 'W/1']) {
      expect(() => parseTags(value, 'If-None-Match'), value).toThrow(/If-None-Match/);
    }
  });
});
