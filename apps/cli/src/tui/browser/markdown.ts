/**
 * A small Markdown renderer for the preview pane: headings, lists, quotes, rules and fenced
 * code become styled lines; inline `**bold**`, `*em*`, `` `code` `` and links lose their markers.
 * It makes notes readable in a terminal; it is not a full CommonMark implementation.
 */

export type MarkdownStyle = 'heading' | 'subheading' | 'code' | 'quote' | 'rule' | 'text';

export interface MarkdownLine {
  readonly text: string;
  readonly style: MarkdownStyle;
}

/** `**a**` → `a`, `[t](u)` → `t (u)`, `` `x` `` → `x`, `*e*`/`_e_` → `e`. */
export function inline(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\(([^)\s]*)[^)]*\)/g, (_, label: string, url: string) =>
      label === '' ? url : `${label} (${url})`,
    )
    .replace(/\*\*([^*]+)\*\*|__([^_]+)__/g, (_, a?: string, b?: string) => a ?? b ?? '')
    .replace(/(^|[^\w*])\*([^*\s][^*]*)\*(?=$|[^\w*])/g, '$1$2')
    .replace(/(^|[^\w])_([^_\s][^_]*)_(?=$|[^\w])/g, '$1$2')
    .replace(/`([^`]+)`/g, '$1');
}

/** The lines of `source` as they should look. */
export function renderMarkdown(source: string): MarkdownLine[] {
  const out: MarkdownLine[] = [];
  let fence: string | null = null;
  for (const raw of source.replace(/\r\n/g, '\n').split('\n')) {
    const line = raw.replace(/\t/g, '    ');
    const fenceMark = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fence !== null) {
      if (fenceMark === fence) fence = null;
      else out.push({ text: `  ${line}`, style: 'code' });
      continue;
    }
    if (fenceMark !== undefined) {
      fence = fenceMark;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const level = heading[1]?.length ?? 1;
      const text = inline(heading[2] ?? '');
      out.push({
        text: level === 1 ? text.toUpperCase() : text,
        style: level <= 2 ? 'heading' : 'subheading',
      });
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push({ text: '─'.repeat(40), style: 'rule' });
      continue;
    }
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote) {
      out.push({ text: `│ ${inline(quote[1] ?? '')}`, style: 'quote' });
      continue;
    }
    const bullet = /^(\s*)[-*+]\s+(?:\[([ xX])\]\s+)?(.*)$/.exec(line);
    if (bullet) {
      const indent = bullet[1] ?? '';
      const box = bullet[2] === undefined ? '•' : bullet[2] === ' ' ? '☐' : '☑';
      out.push({ text: `${indent}  ${box} ${inline(bullet[3] ?? '')}`, style: 'text' });
      continue;
    }
    const numbered = /^(\s*)(\d+)[.)]\s+(.*)$/.exec(line);
    if (numbered) {
      out.push({
        text: `${numbered[1] ?? ''}  ${numbered[2]}. ${inline(numbered[3] ?? '')}`,
        style: 'text',
      });
      continue;
    }
    out.push({ text: inline(line), style: 'text' });
  }
  return out;
}

/** Whether a path is Markdown by its name. */
export function isMarkdown(path: string): boolean {
  return /\.(md|markdown|mdx)$/i.test(path);
}
