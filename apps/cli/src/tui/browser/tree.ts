/** The file tree as rows: directories loaded so far, flattened in path order under expansion. */
import type { FileInfo } from '@satchel/core';

export interface TreeRow {
  readonly info: FileInfo;
  readonly depth: number;
  readonly expanded: boolean;
}

/** The rows shown: the children of "/", and beneath each expanded directory its children. */
export function visibleRows(
  children: ReadonlyMap<string, readonly FileInfo[]>,
  expanded: ReadonlySet<string>,
): TreeRow[] {
  const rows: TreeRow[] = [];
  const walk = (dir: string, depth: number) => {
    for (const info of children.get(dir) ?? []) {
      const open = info.type === 'directory' && expanded.has(info.path);
      rows.push({ info, depth, expanded: open });
      if (open) walk(info.path, depth + 1);
    }
  };
  walk('/', 0);
  return rows;
}

/** `/a/b/c.md` → `['/a', '/a/b']`: the directories to expand to show a path. */
export function ancestors(path: string): string[] {
  const parts = path.split('/').filter((p) => p !== '');
  return parts.slice(0, -1).map((_, i) => `/${parts.slice(0, i + 1).join('/')}`);
}

/** Directories first, then files, each by name (the engine lists in path order). */
export function sortEntries(items: readonly FileInfo[]): FileInfo[] {
  return [...items].sort((a, b) =>
    a.type === b.type ? (a.path < b.path ? -1 : 1) : a.type === 'directory' ? -1 : 1,
  );
}
