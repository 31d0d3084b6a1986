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

/** A unified diff's lines, tabs expanded (none for an empty diff). */
export function unifiedLines(diff: string | null): string[] {
  if (diff === null || diff === '') return [];
  const lines = diff.replace(/\t/g, '    ').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The diff's lines (none when the versions are the same). */
export function diffLines(diff: DiffResult | null): string[] {
  return unifiedLines(diff?.diff ?? null);
}

export function DiffView({ diff, loading, problem, scroll, height }: DiffViewProps) {
  const range =
    diff === null ? '' : `${diff.from === null ? 'nothing' : `v${diff.from}`} → v${diff.to}`;
  return (
    <DiffLines
      lines={diffLines(diff)}
      range={loading ? null : range}
      problem={problem}
      empty={diff !== null && diff.diff === '' ? 'no differences' : null}
      scroll={scroll}
      height={height}
    />
  );
}

export interface DiffLinesProps {
  readonly lines: readonly string[];
  /** What is compared, for the title; null while loading. */
  readonly range: string | null;
  readonly problem: string | null;
  /** Shown instead of the lines (e.g. "no differences"); null: show the lines. */
  readonly empty: string | null;
  readonly scroll: number;
  readonly height: number;
}

/** Diff lines under a title, coloured, from line `scroll`, in `height` rows. */
export function DiffLines({ lines, range, problem, empty, scroll, height }: DiffLinesProps) {
  const tint = useTint();
  const colorOf = (line: string): string | undefined => {
    if (line.startsWith('+++') || line.startsWith('---')) return undefined;
    if (line.startsWith('+')) return tint('green');
    if (line.startsWith('-')) return tint('red');
    if (line.startsWith('@@')) return tint('cyan');
    return undefined;
  };
  const body = Math.max(1, height - 1);
  const note =
    range === null
      ? 'loading…'
      : lines.length > body
        ? `${range} · lines ${scroll + 1}-${Math.min(lines.length, scroll + body)} of ${lines.length}`
        : range;
  return (
    <Box flexDirection="column">
      <Title text="Diff" note={note} />
      {problem !== null ? (
        <Row text={`! ${problem}`} color={tint('red')} />
      ) : empty !== null ? (
        <Row text={empty} dim />
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
