/** The `?` overlay: every key of every screen. */
import { Box } from 'ink';
import { table } from '../format.js';
import { Row, Title } from './parts.js';

export const KEYS: readonly (readonly [string, readonly (readonly [string, string])[]])[] = [
  [
    'Everywhere',
    [
      ['?', 'show or hide these keys'],
      ['q', 'quit'],
      ['1 2 3 4', 'files, locks, activity, audit of the open workspace'],
      ['/', 'search the open workspace'],
      ['w', 'back to the workspaces'],
      ['↑↓ j k', 'move; pgup pgdn home end (g G) jump'],
      ['esc', 'back'],
    ],
  ],
  [
    'Files',
    [
      ['→ enter / ←', 'open / close a directory'],
      ['enter tab', 'look into the preview (↑↓ pgup pgdn scroll, m markdown source)'],
      ['h', 'history of the selected file'],
      ['r', 'refresh'],
    ],
  ],
  [
    'History',
    [
      ['↑↓', 'choose a version: the diff shows what it changed'],
      ['m', 'mark a version; the diff then compares it with the selected one'],
      ['pgup pgdn', 'scroll the diff'],
      ['r', 'restore the selected version (asks first)'],
    ],
  ],
  ['Locks', [['b', 'break the selected lock (owners; asks first)']]],
  [
    'Activity',
    [
      ['u', "preview undoing the selected change's session (↑↓ path, its diff below)"],
      ['a', 'in the preview: apply the undo, in one new seq (asks first)'],
    ],
  ],
  ['Audit', [['v', 'verify the hash chain again']]],
  [
    'Search',
    [
      ['tab', 'grep ↔ ranked search'],
      ['enter', 'search; on a hit: open it'],
    ],
  ],
];

export function Help({ height }: { readonly height: number }) {
  const lines: { text: string; heading: boolean }[] = [];
  for (const [section, keys] of KEYS) {
    lines.push({ text: section, heading: true });
    for (const line of table(keys.map(([key, what]) => [`  ${key}`, what]))) {
      lines.push({ text: line, heading: false });
    }
  }
  return (
    <Box flexDirection="column" height={height}>
      <Title text="Keys" note="? or esc closes" />
      {lines.slice(0, Math.max(0, height - 1)).map((line) => (
        <Row key={line.text} text={line.text} bold={line.heading} />
      ))}
    </Box>
  );
}
