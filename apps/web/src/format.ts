/** How the pages write sizes, times and links into workspaces. */

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** 1234 → "1.2 KB" (powers of 1024, one decimal below 10). */
export function size(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = unit === 0 || value >= 10 ? Math.round(value) : Math.round(value * 10) / 10;
  return `${shown} ${UNITS[unit]}`;
}

/** An ISO time as "2026-12-01 14:03 UTC": one format, whatever the reader's locale. */
export function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A workspace path's segments, each URL-encoded: "/a b/c" → "/a%20b/c". */
export function encodePath(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/** The URL of a page about `path` in `ws`: `/w/<ws>/<kind><path>`. */
export function href(
  ws: string,
  kind: 'tree' | 'file' | 'raw' | 'history' | 'diff' | 'restore',
  path: string,
): string {
  const rooted = path.startsWith('/') ? path : `/${path}`;
  return `/w/${encodeURIComponent(ws)}/${kind}${encodePath(rooted)}`;
}

/** The page that previews undoing `session` in `ws`. */
export function undoHref(ws: string, session: string): string {
  return `/w/${encodeURIComponent(ws)}/undo?session=${encodeURIComponent(session)}`;
}

/** The last segment of a path ("/" for the root). */
export function baseName(path: string): string {
  return path === '/' ? '/' : (path.split('/').pop() ?? path);
}

/** The folder holding `path` ("/" for top-level entries). */
export function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}
