/** A unified diff, coloured: additions green, removals red, hunk headers cyan. */
import type { DiffResult } from '@satchel/core';
import { Box } from 'ink';
import { Row, Title } from '../parts.js';
import { useTint } from '../theme.js';

export interface DiffViewProps {
  readonly diff: DiffResult | null;
  readonly loading: boolean;
  readonly problem: string | null;
  readonly scroll: number;
  readonly height: number;
}

/** The diff's lines (none when the versions are the same). */
export function diffLines(diff: DiffResult | null): string[] {
  if (diff === null || diff.diff === '') return [];
  const lines = diff.diff.replace(/\t/g, '    ').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

export function DiffView({ diff, loading, problem, scroll, height }: DiffViewProps) {
  const tint = useTint();
  const colorOf = (line: string): string | undefined => {
    if (line.startsWith('+++') || line.startsWith('---')) return undefined;
    if (line.startsWith('+')) return tint('green');
    if (line.startsWith('-')) return tint('red');
    if (line.startsWith('@@')) return tint('cyan');
    return undefined;
  };
  const lines = diffLines(diff);
  const body = Math.max(1, height - 1);
  const range =
    diff === null ? '' : `${diff.from === null ? 'nothing' : `v${diff.from}`} → v${diff.to}`;
  const note = loading
    ? 'loading…'
    : lines.length > body
      ? `${range} · lines ${scroll + 1}-${Math.min(lines.length, scroll + body)} of ${lines.length}`
      : range;
  return (
    <Box flexDirection="column">
      <Title text="Diff" note={note} />
      {problem !== null ? (
        <Row text={`! ${problem}`} color={tint('red')} />
      ) : diff !== null && diff.diff === '' ? (
        <Row text="no differences" dim />
      ) : (
        lines.slice(scroll, scroll + body).map((line, i) => (
          <Row
            // biome-ignore lint/suspicious/noArrayIndexKey: lines are positional
            key={scroll + i}
            text={line}
            color={colorOf(line)}
            bold={line.startsWith('+++') || line.startsWith('---')}
          />
        ))
      )}
    </Box>
  );
}
