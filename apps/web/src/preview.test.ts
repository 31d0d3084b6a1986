/** What the file page previews, decided from a file's name, type and first bytes. */
import { describe, expect, it } from 'vitest';
import { looksBinary, previewKind, renderMarkdown, trimPartial } from './preview.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('previews', () => {
  it('never treats markup a browser would run as anything but source', () => {
    for (const [path, type] of [
      ['/a.html', 'text/html'],
      ['/a.txt', 'text/html; charset=utf-8'],
      ['/logo.svg', null],
      ['/feed', 'application/atom+xml'],
      ['/page.XHTML', null],
    ] as const) {
      expect(previewKind(path, type, text('<p>hi</p>')), path).toBe('active');
    }
    expect(previewKind('/a.png', 'image/png', new Uint8Array([137, 80, 78, 71, 0]))).toBe('image');
    expect(previewKind('/r.md', null, text('# hi'))).toBe('markdown');
    expect(previewKind('/r.bin', null, new Uint8Array([1, 0, 2]))).toBe('binary');
    expect(previewKind('/main.ts', null, text('export {};'))).toBe('text');
  });

  it('keeps a preview cut mid-character valid UTF-8, and calls invalid UTF-8 binary', () => {
    const euro = text('a€'); // 61 e2 82 ac
    expect(new TextDecoder().decode(trimPartial(euro.subarray(0, 3)))).toBe('a');
    expect(trimPartial(euro)).toEqual(euro);
    expect(looksBinary(euro.subarray(0, 3))).toBe(false);
    expect(looksBinary(new Uint8Array([0x61, 0xff, 0x62]))).toBe(true);
  });

  it('renders Markdown without raw HTML, script links or event handlers', () => {
    const html = renderMarkdown(
      '# T\n\n<img src=x onerror=alert(1)>\n\n[a](javascript:alert(1)) [b](https://example.com) ![p](data:image/png;base64,AA)\n',
    );
    expect(html).toContain('<h1>T</h1>');
    expect(html).not.toMatch(/<img[^>]*onerror/);
    expect(html).not.toMatch(/href="javascript:/);
    expect(html).not.toMatch(/src="data:/);
    expect(html).toContain(
      '<a href="https://example.com" rel="noopener noreferrer nofollow">b</a>',
    );
  });
});
