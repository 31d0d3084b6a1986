/** Small presentational pieces shared by the screens: rows, key hints, problems, questions. */
import { Box, Text } from 'ink';
import { describeError } from '../errors.js';
import { useTint } from './theme.js';

/** First index of a `height`-row window over `count` rows that keeps `selected` in view. */
export function windowStart(count: number, selected: number, height: number): number {
  if (count <= height) return 0;
  const half = Math.floor(height / 2);
  return Math.max(0, Math.min(selected - half, count - height));
}

/** A thrown error as one line: `message (CODE)`, the CLI's wording without `satchel: `. */
export function problemText(error: unknown): string {
  const [line = 'unknown error'] = describeError(error, '', false).lines;
  return line.replace(/^satchel: /, '');
}

/** Index moved by a key: ↑/k, ↓/j, PgUp/PgDn by `page`, Home/g, End/G; null for other keys. */
export function moved(
  input: string,
  key: {
    upArrow: boolean;
    downArrow: boolean;
    pageUp: boolean;
    pageDown: boolean;
    home?: boolean;
    end?: boolean;
  },
  index: number,
  count: number,
  page: number,
): number | null {
  const last = Math.max(0, count - 1);
  let next: number;
  if (key.upArrow || input === 'k') next = index - 1;
  else if (key.downArrow || input === 'j') next = index + 1;
  else if (key.pageUp) next = index - page;
  else if (key.pageDown) next = index + page;
  else if (key.home || input === 'g') next = 0;
  else if (key.end || input === 'G') next = last;
  else return null;
  return Math.max(0, Math.min(next, last));
}

export interface RowProps {
  readonly text: string;
  readonly selected?: boolean;
  readonly color?: string | undefined;
  readonly dim?: boolean;
  readonly bold?: boolean;
}

/** One line, cut at the edge (never wrapped, so layouts keep their height). */
export function Row({ text, selected, color, dim, bold }: RowProps) {
  return (
    <Text
      wrap="truncate-end"
      inverse={selected === true}
      color={color}
      dimColor={dim === true}
      bold={bold === true}
    >
      {text === '' ? ' ' : text}
    </Text>
  );
}

export interface ListProps {
  readonly rows: readonly string[];
  readonly selected: number;
  readonly height: number;
  /** Highlight the selection (false while another pane has the focus). */
  readonly focused?: boolean;
  readonly empty?: string;
}

/** A scrolling list of preformatted rows with the selected one highlighted. */
export function List({ rows, selected, height, focused = true, empty }: ListProps) {
  if (rows.length === 0) return <Row text={empty ?? '(empty)'} dim />;
  const start = windowStart(rows.length, selected, height);
  return (
    <Box flexDirection="column">
      {rows.slice(start, start + height).map((row, i) => (
        <Row
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
          key={start + i}
          text={row}
          selected={start + i === selected && focused}
          bold={start + i === selected && !focused}
        />
      ))}
    </Box>
  );
}

/** `↑↓ move  enter open  esc back`: the keys of the current screen, dim. */
export function Hints({ items }: { readonly items: readonly (readonly [string, string])[] }) {
  return <Row text={items.map(([key, what]) => `${key} ${what}`).join('  ')} dim />;
}

/** A problem as one red line, or nothing. */
export function Problem({ message }: { readonly message: string | null }) {
  const tint = useTint();
  if (message === null) return null;
  return <Row text={`! ${message}`} color={tint('red')} />;
}

/** A yes/no question waiting for `y` or `n`. */
export function Confirm({ question }: { readonly question: string }) {
  const tint = useTint();
  return <Row text={`${question} [y/n]`} color={tint('yellow')} bold />;
}

/** A pane title: bold, with a dim note after it. */
export function Title({ text, note }: { readonly text: string; readonly note?: string }) {
  return (
    <Text wrap="truncate-end">
      <Text bold>{text}</Text>
      {note === undefined ? null : <Text dimColor>{`  ${note}`}</Text>}
    </Text>
  );
}
