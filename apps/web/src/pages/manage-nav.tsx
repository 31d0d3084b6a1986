/** The links between a workspace's pages: files, activity, access, share links, audit. */

export type ManagePage = 'files' | 'activity' | 'access' | 'share' | 'audit';

const PAGES: ReadonlyArray<readonly [ManagePage, string]> = [
  ['files', 'Files'],
  ['activity', 'Activity'],
  ['access', 'Members, keys and locks'],
  ['share', 'Share links'],
  ['audit', 'Audit log'],
];

/** `/w/<ws>/<page>` (files: the tree's root). */
export function manageHref(ws: string, page: ManagePage, path?: string): string {
  const base = `/w/${encodeURIComponent(ws)}`;
  if (page === 'files') return `${base}/tree/`;
  return path === undefined
    ? `${base}/${page}`
    : `${base}/${page}?path=${encodeURIComponent(path)}`;
}

export function WorkspaceNav({
  ws,
  current,
}: {
  readonly ws: string;
  readonly current: ManagePage;
}) {
  return (
    <nav aria-label={`Workspace ${ws}`} class="actions">
      {PAGES.map(([page, label]) =>
        page === current ? (
          <a href={manageHref(ws, page)} aria-current="page">
            {label}
          </a>
        ) : (
          <a href={manageHref(ws, page)}>{label}</a>
        ),
      )}
    </nav>
  );
}
