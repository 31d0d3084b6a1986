/** The start page (workspaces you can see) and a workspace's folders, paged on the server. */
import type { FileInfo } from '@satchel/core';
import { Hono } from 'hono';
import { baseName, href, size, when } from '../format.js';
import { Breadcrumbs, Layout } from '../layout.js';
import { requireSignIn, workspacePath } from '../requests.js';
import type { WebEnv } from '../web-env.js';
import { activityHref } from './activity.js';
import { ManageLinks, NewFolderForm, UndoNotice } from './manage.js';
import { WorkspaceNav } from './manage-nav.js';
import { UploadForm } from './upload.js';

/** Entries per page of a folder: a folder of 10,000 files is 50 pages, never one. */
export const FOLDER_PAGE = 200;

function EntryRow({ ws, entry }: { readonly ws: string; readonly entry: FileInfo }) {
  const dir = entry.type === 'directory';
  return (
    <tr>
      <td class="name">
        <a href={href(ws, dir ? 'tree' : 'file', entry.path)}>
          {dir ? `${baseName(entry.path)}/` : baseName(entry.path)}
        </a>
      </td>
      <td class="num">{dir ? '—' : size(entry.size)}</td>
      <td>{entry.author}</td>
      <td>{entry.session ?? '—'}</td>
      <td>
        <time datetime={entry.modifiedAt}>{when(entry.modifiedAt)}</time>
      </td>
    </tr>
  );
}

/** The next page's link: a plain link, which htmx turns into "append the rows here". */
function MoreRow({ next, url }: { readonly next: string; readonly url: string }) {
  const page = `${url}?cursor=${encodeURIComponent(next)}`;
  return (
    <tr class="more">
      <td colspan={5}>
        <a href={page} hx-get={`${page}&rows=1`} hx-target="closest tr" hx-swap="outerHTML">
          Show more
        </a>
      </td>
    </tr>
  );
}

export function browseRoutes(): Hono<WebEnv> {
  const app = new Hono<WebEnv>();

  app.get('/', async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === null) return c.redirect('/login', 303);
    const cursor = c.req.query('cursor');
    const page = await signedIn.satchel.listWorkspaces({
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    return c.html(
      <Layout title="Workspaces" signedIn={signedIn}>
        <h1>Workspaces</h1>
        {page.items.length === 0 ? (
          <p>No workspace is shared with you yet.</p>
        ) : (
          <ul class="cards">
            {page.items.map((w) => (
              <li>
                <a href={`/w/${encodeURIComponent(w.name)}/tree/`}>{w.name}</a>
                <span class="meta">
                  created <time datetime={w.createdAt}>{when(w.createdAt)}</time>
                </span>
              </li>
            ))}
          </ul>
        )}
        {page.nextCursor !== null && (
          <p>
            <a href={`/?cursor=${encodeURIComponent(page.nextCursor)}`}>More workspaces</a>
          </p>
        )}
      </Layout>,
    );
  });

  app.get('/w/:ws', (c) => c.redirect(`/w/${encodeURIComponent(c.req.param('ws'))}/tree/`, 303));

  app.get('/w/:ws/tree/*', async (c) => {
    const signedIn = requireSignIn(c);
    const { ws, path } = workspacePath(c);
    const cursor = c.req.query('cursor');
    const page = await signedIn.satchel.list(ws, {
      path,
      limit: FOLDER_PAGE,
      ...(cursor ? { cursor } : {}),
    });
    const url = href(ws, 'tree', path);
    const rows = (
      <>
        {page.items.map((entry) => (
          <EntryRow ws={ws} entry={entry} />
        ))}
        {page.nextCursor !== null && <MoreRow next={page.nextCursor} url={url} />}
      </>
    );
    // htmx asks for the rows alone, to put them in place of the "Show more" row.
    if (c.req.query('rows') === '1') return c.html(rows);
    const title = path === '/' ? ws : `${baseName(path)} · ${ws}`;
    return c.html(
      <Layout title={title} signedIn={signedIn}>
        <Breadcrumbs ws={ws} path={path} />
        <h1>{path === '/' ? ws : baseName(path)}</h1>
        <UndoNotice ws={ws} path={path} query={(name) => c.req.query(name)} csrf={signedIn.csrf} />
        <p class="actions">
          {path !== '/' && <a href={activityHref(ws)}>Activity</a>}
          <ManageLinks ws={ws} path={path} />
        </p>
        {path === '/' && <WorkspaceNav ws={ws} current="files" />}
        <p class="meta">
          {page.total} {page.total === 1 ? 'entry' : 'entries'}
          {cursor ? ' (continued)' : ''}
        </p>
        {page.items.length === 0 ? (
          <p>This folder is empty.</p>
        ) : (
          <div class="scroll">
            <table class="files">
              <caption class="visually-hidden">Files and folders in {path}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col" class="num">
                    Size
                  </th>
                  <th scope="col">Author</th>
                  <th scope="col">Session</th>
                  <th scope="col">Modified</th>
                </tr>
              </thead>
              <tbody>{rows}</tbody>
            </table>
          </div>
        )}
        <div class="manage">
          <NewFolderForm ws={ws} path={path} csrf={signedIn.csrf} />
          <UploadForm ws={ws} path={path} csrf={signedIn.csrf} />
        </div>
      </Layout>,
    );
  });

  return app;
}
