/**
 * Undo of one session (docs/time-travel.md): the preview — every path it takes back, with its
 * diff, and the paths someone else changed since, which stay — then, confirmed, the undo itself
 * in one new seq, as a session of its own that this page can undo in turn.
 */
import type { UndoChange, UndoConflict, UndoPreview, UndoState } from '@satchel/core';
import { SatchelError } from '@satchel/core';
import { Hono } from 'hono';
import { href, undoHref } from '../format.js';
import { Layout } from '../layout.js';
import { requireSignIn, signedForm } from '../requests.js';
import type { WebEnv } from '../web-env.js';
import { DiffView } from './history.js';

/** Paths listed by the preview (the summary counts them all). */
const UNDO_LIST_LIMIT = 500;

function sessionOf(raw: string | undefined): string {
  if (raw === undefined || raw === '') {
    throw new SatchelError('INVALID_INPUT', 'say which session to undo', { field: 'session' });
  }
  return raw;
}

function state(s: UndoState): string {
  if (s === null) return 'nothing';
  return s.deleted ? `deleted (version ${s.seq})` : `version ${s.seq}`;
}

const ACTIONS: Record<UndoChange['action'], string> = {
  revert: 'goes back',
  delete: 'is removed',
  recreate: 'comes back',
};

function countOf(n: number): string {
  return n === 1 ? '1 change' : `${n} changes`;
}

const REASONS: Record<UndoConflict['reason'], string> = {
  changed_since: 'someone else changed it after this session',
  not_empty: 'the folder still holds files that stay',
  parent_is_file: 'a file now sits where its folder would be',
};

function Summary({ preview }: { readonly preview: UndoPreview }) {
  const { summary } = preview;
  return (
    <p>
      {summary.revert} to put back, {summary.delete} to remove, {summary.recreate} to bring back;{' '}
      {summary.conflicts} left as they are.
      {preview.truncated && ` Only the first ${UNDO_LIST_LIMIT} paths are listed.`}
    </p>
  );
}

function Changes({ ws, preview }: { readonly ws: string; readonly preview: UndoPreview }) {
  if (preview.changes.length === 0) return <p>Nothing to undo: every path is as it was.</p>;
  return (
    <section aria-labelledby="undo-changes">
      <h2 id="undo-changes">What changes</h2>
      {preview.changes.map((change) => (
        <details>
          <summary>
            <code>{change.path}</code> {ACTIONS[change.action]}: {state(change.from)} →{' '}
            {state(change.to)}
          </summary>
          {change.diff !== null && change.diff !== '' ? (
            <DiffView diff={change.diff} />
          ) : (
            <p>{change.diffNote ?? 'No text diff for this path.'}</p>
          )}
          {change.type === 'file' && change.action !== 'delete' && (
            <p>
              <a href={href(ws, 'history', change.path)}>History of {change.path}</a>
            </p>
          )}
        </details>
      ))}
    </section>
  );
}

function Conflicts({ preview }: { readonly preview: UndoPreview }) {
  if (preview.conflicts.length === 0) return null;
  return (
    <section aria-labelledby="undo-conflicts">
      <h2 id="undo-conflicts">Left as they are</h2>
      <ul>
        {preview.conflicts.map((c) => (
          <li>
            <code>{c.path}</code>: {REASONS[c.reason]}
            {c.theirs !== null && ` (now ${state(c.theirs)} by ${c.theirs.author})`}
          </li>
        ))}
      </ul>
      <p>
        To revert these too, over the other changes, use{' '}
        <code>satchel undo --session … --force --apply</code>.
      </p>
    </section>
  );
}

export function undoRoutes(): Hono<WebEnv> {
  const app = new Hono<WebEnv>();

  app.get('/w/:ws/undo', async (c) => {
    const signedIn = requireSignIn(c);
    const ws = c.req.param('ws');
    const session = sessionOf(c.req.query('session'));
    const preview = await signedIn.satchel.previewUndo(
      ws,
      { session },
      { diff: true, limit: UNDO_LIST_LIMIT },
    );
    return c.html(
      <Layout title={`Undo session ${session} · ${ws}`} signedIn={signedIn}>
        <h1>Undo session {session}?</h1>
        <Summary preview={preview} />
        <Changes ws={ws} preview={preview} />
        <Conflicts preview={preview} />
        {preview.changes.length > 0 && (
          <form method="post" action={`/w/${encodeURIComponent(ws)}/undo`}>
            <input type="hidden" name="csrf" value={signedIn.csrf} />
            <input type="hidden" name="session" value={session} />
            <input type="hidden" name="head" value={String(preview.head)} />
            <p>
              Every change is written as a new version, all in one step; the history keeps what was
              there, and the undo can be undone.
            </p>
            <button type="submit" class="primary">
              Undo {countOf(preview.changes.length)}
            </button>{' '}
            <a href={href(ws, 'tree', '/')}>Cancel</a>
          </form>
        )}
      </Layout>,
    );
  });

  app.post('/w/:ws/undo', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const ws = c.req.param('ws');
    const session = sessionOf(form.session);
    const head = Number(form.head);
    if (!Number.isSafeInteger(head)) {
      throw new SatchelError('INVALID_INPUT', 'the form names no head', { field: 'head' });
    }
    // ifHead: what was previewed is what happens; a change since to a path it touches refuses it.
    const result = await signedIn.satchel.undo(ws, { session }, { ifHead: head, diff: false });
    return c.html(
      <Layout title={`Session ${session} undone · ${ws}`} signedIn={signedIn}>
        <h1>Session {session} undone</h1>
        {result.seq === null || result.session === null ? (
          <p role="status">Nothing to undo: every path was already as it was.</p>
        ) : (
          <>
            <p role="status">
              {countOf(result.changes.length)} written as seq {result.seq}, session{' '}
              <code>{result.session}</code>.
            </p>
            <p>
              <a href={undoHref(ws, result.session)}>Undo this undo…</a>
            </p>
          </>
        )}
        <p>
          <a href={href(ws, 'tree', '/')}>Back to the files</a>
        </p>
      </Layout>,
    );
  });

  return app;
}
