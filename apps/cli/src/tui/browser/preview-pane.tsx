/** The preview pane: text with line numbers, Markdown rendered, binaries as type, size, hash. */
import type { FileInfo } from '@satchel/core';
import { Box } from 'ink';
import { humanSize, shortTime } from '../../format.js';
import { Row, Title } from '../parts.js';
import { useTint } from '../theme.js';
import { isMarkdown, type MarkdownLine, renderMarkdown } from './markdown.js';

export type Preview =
  | { readonly kind: 'none' }
  | { readonly kind: 'loading'; readonly path: string }
  | { readonly kind: 'directory'; readonly info: FileInfo }
  | {
      readonly kind: 'text';
      readonly info: FileInfo;
      readonly lines: readonly string[];
      readonly truncated: boolean;
    }
  | { readonly kind: 'binary'; readonly info: FileInfo }
  | { readonly kind: 'error'; readonly path: string; readonly message: string };

export interface PreviewPaneProps {
  readonly preview: Preview;
  /** First line shown (0-based). */
  readonly scroll: number;
  readonly height: number;
  readonly focused: boolean;
  /** Markdown files are rendered unless this is false (`m` shows the source). */
  readonly rendered: boolean;
}

/** The lines a text preview scrolls over: rendered Markdown or numbered source lines. */
export function previewLines(
  preview: Preview,
  rendered: boolean,
): readonly (MarkdownLine & { readonly number?: string })[] {
  if (preview.kind !== 'text') return [];
  if (rendered && isMarkdown(preview.info.path)) return renderMarkdown(preview.lines.join('\n'));
  const width = String(preview.lines.length).length;
  return preview.lines.map((line, i) => ({
    text: line.replace(/\t/g, '    '),
    style: 'text' as const,
    number: String(i + 1).padStart(width),
  }));
}

function facts(info: FileInfo): string {
  return [
    `v${info.seq}`,
    humanSize(info.size),
    info.author,
    shortTime(info.modifiedAt),
    ...(info.session === null ? [] : [`[${info.session}]`]),
  ].join(' · ');
}

export function PreviewPane({ preview, scroll, height, focused, rendered }: PreviewPaneProps) {
  const tint = useTint();
  const body = Math.max(1, height - 2);
  const title = (path: string, note?: string) => (
    <Title text={`${focused ? '▶ ' : ''}${path}`} note={note} />
  );
  switch (preview.kind) {
    case 'none':
      return <Row text="select a file to preview it" dim />;
    case 'loading':
      return title(preview.path, 'loading…');
    case 'error':
      return (
        <Box flexDirection="column">
          {title(preview.path)}
          <Row text={`! ${preview.message}`} color={tint('red')} />
        </Box>
      );
    case 'directory':
      return (
        <Box flexDirection="column">
          {title(`${preview.info.path}/`, facts(preview.info))}
          <Row text="directory: → or enter expands it" dim />
        </Box>
      );
    case 'binary':
      return (
        <Box flexDirection="column">
          {title(preview.info.path, facts(preview.info))}
          <Row text="binary file" bold />
          <Row text={`type    ${preview.info.contentType ?? 'unknown'}`} />
          <Row text={`size    ${humanSize(preview.info.size)} (${preview.info.size} bytes)`} />
          <Row text={`sha256  ${preview.info.hash ?? '-'}`} />
        </Box>
      );
    case 'text': {
      const lines = previewLines(preview, rendered);
      const shown = lines.slice(scroll, scroll + body);
      const end = Math.min(lines.length, scroll + body);
      const where = lines.length === 0 ? 'empty' : `lines ${scroll + 1}-${end} of ${lines.length}`;
      const more = preview.truncated ? ' (cut: file continues)' : '';
      return (
        <Box flexDirection="column">
          {title(preview.info.path, `${facts(preview.info)} · ${where}${more}`)}
          {shown.map((line, i) => (
            <Row
              // biome-ignore lint/suspicious/noArrayIndexKey: lines are positional
              key={scroll + i}
              text={line.number === undefined ? line.text : `${line.number} │ ${line.text}`}
              bold={line.style === 'heading' || line.style === 'subheading'}
              color={
                line.style === 'heading'
                  ? tint('cyan')
                  : line.style === 'code'
                    ? tint('yellow')
                    : undefined
              }
              dim={line.style === 'quote' || line.style === 'rule'}
            />
          ))}
        </Box>
      );
    }
  }
}
