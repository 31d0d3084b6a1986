/**
 * A workspace's activity, live from the change feed, and "what did session X do" as one list.
 * The live part is htmx with no script of ours: a sentinel row asks for the changes after the
 * last one it saw, the server long-polls the engine's `listChanges` (waitSeconds), and answers
 * with the new rows and a fresh sentinel that asks again.
 */
import type { ChangeEvent, Satchel } from '@satchel/core';
import { SatchelError } from '@satchel/core';
import { Hono } from 'hono';
import { href, undoHref, when } from '../format.js';
import { Layout } from '../layout.js';
import { requireSignIn, seqParam } from '../requests.js';
import type { WebEnv } from '../web-env.js';

/** Changes shown when the activity page opens (the newest). */
const RECENT = 100;
/** How long one live request waits for a change before it answers "nothing yet". */
const LIVE_WAIT_SECONDS = 20;
/** Events read per call while looking for one session's changes, and calls per page. */
const SCAN_PAGE = 1000;
const SCAN_CALLS = 20;
/** A session's changes shown per page. */
const SESSION_PAGE = 500;

export function activityHref(ws: string): string {
  return `/w/${encodeURIComponent(ws)}/activity`;
}

export function sessionHref(ws: string, session: string): string {
  return `/w/${encodeURIComponent(ws)}/session/${encodeURIComponent(session)}`;
}

function what(e: ChangeEvent): string {
  if (e.deleted) return 'deleted';
  if (e.origin !== null) return `${e.type} from ${e.origin.path}`;
  return e.type;
}

/** One change as a row: the path (to the version it made), what, who, which session, when. */
export function ChangeRow({ ws, e }: { readonly ws: string; readonly e: ChangeEvent }) {
  const link =
    e.kind === 'directory'
      ? href(ws, 'tree', e.path)
      : `${href(ws, 'file', e.path)}?version=${e.version}`;
  return (
    <tr>
      <td class="num">{e.seq}</td>
      <td class="name">
        {e.deleted ? (
          <a href={href(ws, 'history', e.path)}>{e.path}</a>
        ) : (
          <a href={link}>{e.path}</a>
        )}
      </td>
      <td>{what(e)}</td>
      <td>{e.actor}</td>
      <td>{e.session === null ? '—' : <a href={sessionHref(ws, e.session)}>{e.session}</a>}</td>
      <td>
        <time datetime={e.time}>{when(e.time)}</time>
      </td>
    </tr>
  );
}

function ChangesTable({
  caption,
  children,
}: {
  readonly caption: string;
  readonly children?: unknown;
}) {
  return (
    <div class="scroll">
      <table class="changes">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col" class="num">
              Seq
            </th>
            <th scope="col">Path</th>
            <th scope="col">Change</th>
            <th scope="col">Who</th>
            <th scope="col">Session</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody id="changes">{children as never}</tbody>
      </table>
    </div>
  );
}

/** The row that asks for what comes after `cursor`, and is replaced by it (newest first). */
function LiveRow({ ws, cursor }: { readonly ws: string; readonly cursor: number }) {
  return (
    <tr
      class="live"
      hx-get={`${activityHref(ws)}/live?after=${cursor}`}
      hx-trigger="load"
      hx-swap="outerHTML"
    >
      <td colspan={6} class="visually-hidden">
        Waiting for changes
      </td>
    </tr>
  );
}

async function recent(satchel: Satchel, ws: string): Promise<ChangeEvent[]> {
  const { seq } = await satchel.getWorkspace(ws);
  // Seqs are the workspace's mutations: the last RECENT of them hold the newest changes.
  const page = await satchel.listChanges(ws, { after: Math.max(0, seq - RECENT), limit: 1000 });
  return page.events.slice(-RECENT);
}

export function activityRoutes(): Hono<WebEnv> {
  const app = new Hono<WebEnv>();

  app.get('/w/:ws/activity', async (c) => {
    const signedIn = requireSignIn(c);
    const ws = c.req.param('ws');
    const events = await recent(signedIn.satchel, ws);
    const cursor = events.at(-1)?.seq ?? (await signedIn.satchel.getWorkspace(ws)).seq;
    return c.html(
      <Layout title={`Activity · ${ws}`} signedIn={signedIn}>
        <h1>Activity in {ws}</h1>
        <p class="actions">
          <a href={`/w/${encodeURIComponent(ws)}/tree/`}>Files</a>
        </p>
        <p class="meta" id="live-note">
          Newest first. New changes appear here as agents and people make them.
        </p>
        <ChangesTable caption={`Changes in ${ws}, newest first`}>
          <LiveRow ws={ws} cursor={cursor} />
          {[...events].reverse().map((e) => (
            <ChangeRow ws={ws} e={e} />
          ))}
        </ChangesTable>
        {events.length === 0 && <p>No changes yet.</p>}
      </Layout>,
    );
  });

  // The long poll: the rows after `after`, newest first, under a sentinel asking for more.
  app.get('/w/:ws/activity/live', async (c) => {
    const signedIn = requireSignIn(c);
    const ws = c.req.param('ws');
    const after = seqParam(c, 'after') ?? 0;
    const page = await signedIn.satchel.listChanges(ws, {
      after,
      limit: 200,
      waitSeconds: LIVE_WAIT_SECONDS,
    });
    return c.html(
      <>
        <LiveRow ws={ws} cursor={page.cursor} />
        {[...page.events].reverse().map((e) => (
          <ChangeRow ws={ws} e={e} />
        ))}
      </>,
    );
  });

  app.get('/w/:ws/session/:session', async (c) => {
    const signedIn = requireSignIn(c);
    const ws = c.req.param('ws');
    const session = c.req.param('session');
    if (session.length === 0 || session.length > 200) {
      throw new SatchelError('INVALID_INPUT', 'no such session label', { field: 'session' });
    }
    // No index by session: read the feed in order, keeping this session's changes.
    let after = seqParam(c, 'after') ?? 0;
    const found: ChangeEvent[] = [];
    let end = false;
    for (let call = 0; call < SCAN_CALLS && found.length < SESSION_PAGE; call++) {
      const page = await signedIn.satchel.listChanges(ws, { after, limit: SCAN_PAGE });
      for (const e of page.events) {
        if (found.length >= SESSION_PAGE) break;
        if (e.session === session) found.push(e);
        after = e.seq;
      }
      if (
        page.events.length === 0 ||
        (page.events.length < SCAN_PAGE && found.length < SESSION_PAGE)
      ) {
        end = true;
        break;
      }
    }
    const actors = [...new Set(found.map((e) => e.actor))];
    return c.html(
      <Layout title={`Session ${session} · ${ws}`} signedIn={signedIn}>
        <h1>What session {session} did</h1>
        <p class="actions">
          <a href={activityHref(ws)}>All activity</a>
          <a href={`/w/${encodeURIComponent(ws)}/tree/`}>Files</a>
          {found.length > 0 && <a href={undoHref(ws, session)}>Undo this session…</a>}
        </p>
        <p class="meta">
          {found.length} {found.length === 1 ? 'change' : 'changes'}
          {actors.length > 0 && ` by ${actors.join(', ')}`}, oldest first.
        </p>
        {found.length > 0 && (
          <ChangesTable caption={`Changes of session ${session}, oldest first`}>
            {found.map((e) => (
              <ChangeRow ws={ws} e={e} />
            ))}
          </ChangesTable>
        )}
        {!end && (
          <p>
            <a href={`${sessionHref(ws, session)}?after=${after}`}>Later changes of this session</a>
          </p>
        )}
      </Layout>,
    );
  });

  return app;
}
