/**
 * Changing a workspace's tree from the web app: create a folder, rename or move, delete — each
 * in a session of its own (`web-<id>`), so the folder page that follows can offer **Undo**,
 * which is the engine's undo of exactly that session (previewed, then applied with ifHead).
 */
import { randomUUID } from 'node:crypto';
import type { Satchel } from '@satchel/core';
import { SatchelError } from '@satchel/core';
import { Hono } from 'hono';
import { baseName, href, parentOf } from '../format.js';
import { Breadcrumbs, Layout } from '../layout.js';
import { requireSignIn, signedForm, workspacePath } from '../requests.js';
import type { SignedIn, WebEnv } from '../web-env.js';

/** A session label for one change made in the web app: undoing it undoes just that change. */
export function webSession(): string {
  return `web-${randomUUID().slice(0, 13)}`;
}

function manageHref(ws: string, kind: 'rename' | 'delete' | 'mkdir', path: string): string {
  return href(ws, 'tree', path).replace(/\/tree/, `/${kind}`);
}

/** The folder page after a change: it says what happened and offers Undo. */
function doneHref(ws: string, folder: string, session: string, what: string): string {
  const q = new URLSearchParams({ done: what, undo: session });
  return `${href(ws, 'tree', folder)}?${q}`;
}

/** "Rename or move…" and "Delete…" for a file or folder (not the workspace root). */
export function ManageLinks({ ws, path }: { readonly ws: string; readonly path: string }) {
  if (path === '/') return null;
  return (
    <>
      <a href={manageHref(ws, 'rename', path)}>Rename or move…</a>
      <a href={manageHref(ws, 'delete', path)}>Delete…</a>
    </>
  );
}

/** The notice a folder page shows after a change from the web app, with its Undo button. */
export function UndoNotice({
  ws,
  path,
  query,
  csrf,
}: {
  readonly ws: string;
  readonly path: string;
  readonly query: (name: string) => string | undefined;
  readonly csrf: string;
}) {
  const [done, session, note] = [query('done'), query('undo'), query('note')];
  if (note !== undefined) {
    return (
      <p class="notice" role="status">
        {note.slice(0, 300)}
      </p>
    );
  }
  if (done === undefined || session === undefined || !session.startsWith('web-')) return null;
  return (
    <div class="notice undo" role="status">
      <span>{done.slice(0, 300)}</span>{' '}
      <form method="post" action={`/w/${encodeURIComponent(ws)}/undo-change`}>
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="session" value={session} />
        <input type="hidden" name="back" value={path} />
        <button type="submit">Undo</button>
      </form>
    </div>
  );
}

/** The New folder form of a folder page. */
export function NewFolderForm({
  ws,
  path,
  csrf,
}: {
  readonly ws: string;
  readonly path: string;
  readonly csrf: string;
}) {
  return (
    <form method="post" action={manageHref(ws, 'mkdir', path)} class="inline-form">
      <input type="hidden" name="csrf" value={csrf} />
      <label for="new-folder">New folder</label>
      <input id="new-folder" name="name" required maxLength={255} autocomplete="off" />
      <button type="submit">Create</button>
    </form>
  );
}

function childPath(folder: string, name: string): string {
  const clean = name.trim();
  if (clean === '' || clean === '.' || clean === '..' || clean.includes('/')) {
    throw new SatchelError('INVALID_PATH', 'a folder name cannot be empty or contain "/"', {
      field: 'name',
    });
  }
  return folder === '/' ? `/${clean}` : `${folder}/${clean}`;
}

async function kindOf(satchel: Satchel, ws: string, path: string): Promise<string> {
  return (await satchel.stat(ws, path)).type === 'directory' ? 'folder' : 'file';
}

function ConfirmPage({
  signedIn,
  ws,
  path,
  title,
  children,
}: {
  readonly signedIn: SignedIn;
  readonly ws: string;
  readonly path: string;
  readonly title: string;
  readonly children?: unknown;
}) {
  return (
    <Layout title={`${title} · ${ws}`} signedIn={signedIn}>
      <Breadcrumbs ws={ws} path={path} />
      <h1>{title}</h1>
      {children as never}
    </Layout>
  );
}

export function manageRoutes(): Hono<WebEnv> {
  const app = new Hono<WebEnv>();

  app.post('/w/:ws/mkdir/*', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const { ws, path } = workspacePath(c);
    const target = childPath(path, form.name ?? '');
    const session = webSession();
    await signedIn.satchel.mkdir(ws, target, { session });
    return c.redirect(doneHref(ws, path, session, `Created folder ${baseName(target)}.`), 303);
  });

  app.get('/w/:ws/rename/*', async (c) => {
    const signedIn = requireSignIn(c);
    const { ws, path } = workspacePath(c);
    const kind = await kindOf(signedIn.satchel, ws, path);
    return c.html(
      <ConfirmPage
        signedIn={signedIn}
        ws={ws}
        path={path}
        title={`Rename or move ${baseName(path)}`}
      >
        <p>
          Give the {kind} a new path in {ws}. Its history follows it.
        </p>
        <form method="post" action={manageHref(ws, 'rename', path)} class="stack">
          <input type="hidden" name="csrf" value={signedIn.csrf} />
          <label for="to">New path</label>
          <input id="to" name="to" value={path} required maxLength={4096} autocomplete="off" />
          <div>
            <button type="submit" class="primary">
              Rename or move
            </button>{' '}
            <a href={href(ws, 'tree', parentOf(path))}>Cancel</a>
          </div>
        </form>
      </ConfirmPage>,
    );
  });

  app.post('/w/:ws/rename/*', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const { ws, path } = workspacePath(c);
    const raw = (form.to ?? '').trim();
    if (raw === '') {
      throw new SatchelError('INVALID_INPUT', 'say where to move it', { field: 'to' });
    }
    // A bare name renames in place; a path moves.
    const to = raw.startsWith('/') ? raw : childPath(parentOf(path), raw);
    const session = webSession();
    const moved = await signedIn.satchel.move(ws, path, to, { session });
    const what = `Moved ${path} to ${moved.path}.`;
    return c.redirect(doneHref(ws, parentOf(moved.path), session, what), 303);
  });

  app.get('/w/:ws/delete/*', async (c) => {
    const signedIn = requireSignIn(c);
    const { ws, path } = workspacePath(c);
    const kind = await kindOf(signedIn.satchel, ws, path);
    return c.html(
      <ConfirmPage signedIn={signedIn} ws={ws} path={path} title={`Delete ${baseName(path)}?`}>
        <p>
          The {kind} {path}
          {kind === 'folder' ? ' and everything in it' : ''} will be deleted. Its history stays, and
          the next page offers <strong>Undo</strong>.
        </p>
        <form method="post" action={manageHref(ws, 'delete', path)}>
          <input type="hidden" name="csrf" value={signedIn.csrf} />
          <button type="submit" class="primary">
            Delete {baseName(path)}
          </button>{' '}
          <a href={href(ws, 'tree', parentOf(path))}>Cancel</a>
        </form>
      </ConfirmPage>,
    );
  });

  app.post('/w/:ws/delete/*', async (c) => {
    const { signedIn } = await signedForm(c);
    const { ws, path } = workspacePath(c);
    if (path === '/') {
      throw new SatchelError('INVALID_PATH', 'the workspace root cannot be deleted here');
    }
    const session = webSession();
    const { removed } = await signedIn.satchel.remove(ws, path, { session, recursive: true });
    const what = `Deleted ${path}${removed > 1 ? ` (${removed} entries)` : ''}.`;
    return c.redirect(doneHref(ws, parentOf(path), session, what), 303);
  });

  app.post('/w/:ws/undo-change', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const ws = c.req.param('ws');
    const session = form.session ?? '';
    if (!/^web-[0-9a-f-]{1,40}$/.test(session)) {
      throw new SatchelError(
        'INVALID_INPUT',
        'only a change made in the web app can be undone here',
        {
          field: 'session',
        },
      );
    }
    // Only your own changes of that session: a link cannot make you undo someone else's.
    const target = { session, principal: signedIn.principal };
    const preview = await signedIn.satchel.previewUndo(ws, target, { diff: false });
    if (preview.conflicts.length > 0) {
      throw new SatchelError(
        'CONFLICT',
        `cannot undo: ${preview.conflicts.map((x) => x.path).join(', ')} changed since`,
        { reason: 'changed_since' },
      );
    }
    const result = await signedIn.satchel.undo(ws, target, { ifHead: preview.head, diff: false });
    const folder = (form.back ?? '/').startsWith('/') ? (form.back ?? '/') : '/';
    const note = result.seq === null ? 'Nothing to undo.' : 'Undone.';
    return c.redirect(`${href(ws, 'tree', folder)}?${new URLSearchParams({ note })}`, 303);
  });

  return app;
}
