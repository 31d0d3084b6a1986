/** Human-readable output: sizes, times, aligned columns and coloured diffs. */

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** `512 B`, `1.5 KiB`, `3.0 MiB`, `120 GiB`: binary units, at most one decimal. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes;
  let unit = 'B';
  for (const next of UNITS) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${unit}`;
}

/** `2025-12-02T14:22:05.123Z` → `2025-12-02 14:22:05Z` (still UTC, still sortable). */
export function shortTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** `45s`, `12m 5s`, `3h 20m`, `2d 4h`: the two largest units; anything ≤ 0 is `0s`. */
export function humanDuration(ms: number): string {
  let seconds = Math.max(0, Math.round(ms / 1000));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (seconds >= size || (unit === 's' && parts.length === 0)) {
      parts.push(`${Math.floor(seconds / size)}${unit}`);
      seconds %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

export type Align = 'left' | 'right';

/**
 * Rows as lines with columns padded to their widest cell, separated by two spaces. The last
 * column is never padded, so lines carry no trailing blanks.
 */
export function table(
  rows: readonly (readonly string[])[],
  align: readonly Align[] = [],
): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => {
        if (i === row.length - 1 && align[i] !== 'right') return cell;
        const width = widths[i] ?? cell.length;
        return align[i] === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  '),
  );
}

const GREEN = '\u001b[32m';
const RED = '\u001b[31m';
const RESET = '\u001b[0m';

/** Colours added lines green and removed lines red; file headers (`+++`, `---`) stay plain. */
export function colorDiff(diff: string, enabled: boolean): string {
  if (!enabled) return diff;
  return diff
    .split('\n')
    .map((line) => {
      if (line.startsWith('+++') || line.startsWith('---')) return line;
      if (line.startsWith('+')) return `${GREEN}${line}${RESET}`;
      if (line.startsWith('-')) return `${RED}${line}${RESET}`;
      return line;
    })
    .join('\n');
}

/** Pretty JSON with a final newline, for `--json`. */
export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Adds an "Examples:" section to a command's help; every command has at least one. */
export function examples(
  cmd: { addHelpText(position: 'after', text: string): unknown },
  lines: readonly string[],
): void {
  cmd.addHelpText('after', `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`);
}
