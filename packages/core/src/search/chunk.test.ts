/** The passage splitter: natural boundaries, size, overlap, and exact line ranges. */
import { describe, expect, it } from 'vitest';
import { chunkText, splitLines } from './chunk.js';

function linesOf(text: string, start: number, end: number): string {
  return splitLines(text)
    .slice(start - 1, end)
    .join('');
}

const words = (n: number, word = 'word') => Array.from({ length: n }, () => word).join(' ');

describe('chunkText', () => {
  it('starts a passage at every markdown heading and keeps line ranges exact', () => {
    const text = '# One\n\nalpha text\n\n## Two\nbeta text\n\n### Three\n\ngamma\n';
    const passages = chunkText(text);
    expect(passages.map((p) => [p.lineStart, p.lineEnd])).toEqual([
      [1, 3],
      [5, 6],
      [8, 10],
    ]);
    for (const p of passages) expect(p.text).toBe(linesOf(text, p.lineStart, p.lineEnd));
  });

  it('cuts long text at blank lines near the target size, with a small overlap', () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => `${words(60, `p${i}`)}\n`);
    const text = paragraphs.join('\n');
    const passages = chunkText(text, { targetWords: 200, maxWords: 400, overlapLines: 1 });
    expect(passages.length).toBeGreaterThan(2);
    for (const p of passages) {
      expect(p.text).toBe(linesOf(text, p.lineStart, p.lineEnd));
      expect(p.text.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(400);
    }
    // Consecutive passages share their edge line.
    for (let i = 1; i < passages.length; i++) {
      expect(passages[i]?.lineStart).toBeLessThanOrEqual(passages[i - 1]?.lineEnd ?? 0);
    }
    // Every line with content is in some passage.
    const covered = new Set(passages.flatMap((p) => range(p.lineStart, p.lineEnd)));
    splitLines(text).forEach((line, i) => {
      if (line.trim() !== '') expect(covered.has(i + 1)).toBe(true);
    });
  });

  it('does not split a fenced code block, even with blank lines or headings inside', () => {
    const code = ['```ts', 'const a = 1;', '', '# not a heading', '', 'const b = 2;', '```'];
    const text = ['Intro words here.', '', ...code, '', 'After.'].join('\n');
    const passages = chunkText(text, { targetWords: 3, maxWords: 50, overlapLines: 0 });
    const withCode = passages.find((p) => p.text.includes('```ts'));
    expect(withCode?.text).toContain('const b = 2;\n```');
    expect(withCode?.text).toContain('# not a heading');
  });

  it('splits a block longer than the maximum by lines', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i} ${words(8)}`).join('\n');
    const passages = chunkText(text, { targetWords: 100, maxWords: 200, overlapLines: 2 });
    expect(passages.length).toBeGreaterThan(5);
    for (const p of passages) expect(p.text).toBe(linesOf(text, p.lineStart, p.lineEnd));
  });

  it('has no passages for blank text, and handles CRLF and a missing final newline', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText('\n\n  \n')).toEqual([]);
    expect(chunkText('a\r\nb')).toEqual([{ lineStart: 1, lineEnd: 2, text: 'a\r\nb' }]);
  });
});

function range(a: number, b: number): number[] {
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}
