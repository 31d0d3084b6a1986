/** The tree pane: one row per visible entry, indented, with size, last author and time. */
import { baseName } from '@satchel/core';
import { Box } from 'ink';
import { humanSize, table } from '../../format.js';
import { List, Title } from '../parts.js';
import type { TreeRow } from './tree.js';

export interface FileTreeProps {
  readonly workspace: string;
  readonly rows: readonly TreeRow[];
  readonly selected: number;
  readonly height: number;
  readonly focused: boolean;
  readonly loading: boolean;
}

/** `2025-12-02T14:22:05.123Z` → `12-02 14:22` (UTC, short enough for the tree). */
function when(iso: string): string {
  return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

export function treeLines(rows: readonly TreeRow[]): string[] {
  return table(
    rows.map(({ info, depth, expanded }) => {
      const directory = info.type === 'directory';
      const mark = directory ? (expanded ? '▾ ' : '▸ ') : '  ';
      const name = `${'  '.repeat(depth)}${mark}${baseName(info.path)}${directory ? '/' : ''}`;
      return [name, directory ? '' : humanSize(info.size), info.author, when(info.modifiedAt)];
    }),
    ['left', 'right', 'left', 'left'],
  );
}

export function FileTree({ workspace, rows, selected, height, focused, loading }: FileTreeProps) {
  return (
    <Box flexDirection="column">
      <Title
        text={`${focused ? '▶ ' : ''}${workspace}:/`}
        note={loading ? 'loading…' : undefined}
      />
      <List
        rows={treeLines(rows)}
        selected={selected}
        height={Math.max(1, height - 1)}
        focused={focused}
        empty="(no files)"
      />
    </Box>
  );
}
