/** A file's versions, the diff between two of them, and restoring one (confirm, then POST). */
import type { Version } from '@satchel/core';
import { SatchelError } from '@satchel/core';
import { Hono } from 'hono';
import { baseName, href, size, when } from '../format.js';
import { Breadcrumbs, Layout } from '../layout.js';
import { requireSignIn, seqParam, signedForm, workspacePath } from '../requests.js';
import type { WebEnv } from '../web-env.js';
import { sessionHref } from './activity.js';
import { SplitDiffView } from './split-diff.js';

/** Versions per page of a file's history. */
const HISTORY_PAGE = 100;

/** The session label of changes made from the web app, recorded with each version. */
export const WEB_SESSION_LABEL = 'web';

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'ctx';
}

/** A unified diff with each line marked; the +/- signs stay, so colour is never the only cue. */
export function DiffView({ diff }: { readonly diff: string }) {
  const lines = diff.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return (
    <section class="scroll" aria-label="Unified diff" tabindex={0}>
      <pre class="diff">
        <code>
          {lines.map((line) => (
            <span class={`line ${lineClass(line)}`}>
              {line}
              {'\n'}
            </span>
          ))}
        </code>
      </pre>
    </section>
  );
}

function VersionRow({
  ws,
  v,
  head,
}: {
  readonly ws: string;
  readonly v: Version;
  readonly head: number;
}) {
  const label = `version ${v.seq}`;
  return (
    <tr>
      <td>
        <input
          type="radio"
          name="from"
          value={String(v.seq)}
          aria-label={`Compare from ${label}`}
        />
      </td>
      <td>
        <input type="radio" name="to" value={String(v.seq)} aria-label={`Compare to ${label}`} />
      </td>
      <td class="num">
        {v.deleted ? v.seq : <a href={`${href(ws, 'file', v.path)}?version=${v.seq}`}>{v.seq}</a>}
      </td>
      <td>{v.deleted ? 'deleted' : v.op}</td>
      <td>{v.author}</td>
      <td>{v.session === null ? '—' : <a href={sessionHref(ws, v.session)}>{v.session}</a>}</td>
      <td>
        <time datetime={v.time}>{when(v.time)}</time>
      </td>
      <td class="num">{v.deleted ? '—' : size(v.size)}</td>
      <td>
        {!v.deleted && v.seq !== head && v.type === 'file' && (
          <a
            href={`${href(ws, 'restore', v.path)}?version=${v.seq}`}
            aria-label={`Restore ${label}`}
          >
            Restore…
          </a>
        )}
      </td>
    </tr>
  );
}

export function historyRoutes(): Hono<WebEnv> {
  const app = new Hono<WebEnv>();

  app.get('/w/:ws/history/*', async (c) => {
    const signedIn = requireSignIn(c);
    const { ws, path } = workspacePath(c);
    const cursor = c.req.query('cursor');
    const page = await signedIn.satchel.listVersions(ws, path, {
      limit: HISTORY_PAGE,
      ...(cursor ? { cursor } : {}),
    });
    const head = page.items[0]?.seq ?? 0;
    const name = baseName(path);
    return c.html(
      <Layout title={`History of ${name} · ${ws}`} signedIn={signedIn}>
        <Breadcrumbs ws={ws} path={path} />
        <h1>History of {name}</h1>
        <p class="actions">
          <a href={href(ws, 'file', path)}>Back to the file</a>
        </p>
        <form method="get" action={href(ws, 'diff', path)}>
          <div class="scroll">
            <table class="versions">
              <caption class="visually-hidden">Versions of {path}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">From</th>
                  <th scope="col">To</th>
                  <th scope="col" class="num">
                    Version
                  </th>
                  <th scope="col">Change</th>
                  <th scope="col">Author</th>
                  <th scope="col">Session</th>
                  <th scope="col">When</th>
                  <th scope="col" class="num">
                    Size
                  </th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((v) => (
                  <VersionRow ws={ws} v={v} head={head} />
                ))}
              </tbody>
            </table>
          </div>
          <button type="submit" class="primary">
            Compare the two versions
          </button>
        </form>
        {page.nextCursor !== null && (
          <p>
            <a href={`${href(ws, 'history', path)}?cursor=${encodeURIComponent(page.nextCursor)}`}>
              Older versions
            </a>
          </p>
        )}
      </Layout>,
    );
  });

  app.get('/w/:ws/diff/*', async (c) => {
    const signedIn = requireSignIn(c);
    const { ws, path } = workspacePath(c);
    const from = seqParam(c, 'from');
    const to = seqParam(c, 'to');
    // Either order: the older version is always the "from" side.
    const [older, newer] =
      from !== undefined && to !== undefined && from > to ? [to, from] : [from, to];
    const result = await signedIn.satchel.diff(ws, path, {
      ...(older === undefined ? {} : { from: older }),
      ...(newer === undefined ? {} : { to: newer }),
    });
    const name = baseName(path);
    const title = `Changes to ${name} from version ${result.from ?? 'none'} to ${result.to}`;
    const split = c.req.query('view') === 'split';
    const base = `${href(ws, 'diff', path)}?from=${result.from ?? ''}&to=${result.to}`;
    return c.html(
      <Layout title={`${title} · ${ws}`} signedIn={signedIn}>
        <Breadcrumbs ws={ws} path={path} />
        <h1>{title}</h1>
        <p class="actions">
          <a href={href(ws, 'history', path)}>Back to the history</a>
        </p>
        <nav aria-label="Diff layout" class="toggle">
          <a href={base} aria-current={split ? undefined : 'page'}>
            Unified
          </a>
          <a href={`${base}&view=split`} aria-current={split ? 'page' : undefined}>
            Side by side
          </a>
        </nav>
        {result.binary ? (
          <p>These versions are binary: there is no line diff to show.</p>
        ) : result.diff === '' ? (
          <p>The two versions have the same content.</p>
        ) : split ? (
          <SplitDiffView diff={result.diff} from={result.from} to={result.to} />
        ) : (
          <DiffView diff={result.diff} />
        )}
      </Layout>,
    );
  });

  app.get('/w/:ws/restore/*', async (c) => {
    const signedIn = requireSignIn(c);
    const { ws, path } = workspacePath(c);
    const version = seqParam(c, 'version');
    if (version === undefined) {
      throw new SatchelError('INVALID_INPUT', 'say which version to restore', { field: 'version' });
    }
    const [old, head] = await Promise.all([
      signedIn.satchel.stat(ws, path, { version }),
      signedIn.satchel.stat(ws, path),
    ]);
    const name = baseName(path);
    return c.html(
      <Layout title={`Restore ${name} · ${ws}`} signedIn={signedIn}>
        <Breadcrumbs ws={ws} path={path} />
        <h1>
          Restore version {version} of {name}?
        </h1>
        <p>
          Version {version} ({size(old.size)}, by {old.author}, {when(old.modifiedAt)}) becomes the
          current content again, as a new version. The current version {head.seq} stays in the
          history: nothing is lost.
        </p>
        <p class="actions">
          <a href={`${href(ws, 'diff', path)}?from=${version}&to=${head.seq}`}>See what changes</a>
        </p>
        <form method="post" action={href(ws, 'restore', path)}>
          <input type="hidden" name="csrf" value={signedIn.csrf} />
          <input type="hidden" name="version" value={String(version)} />
          <input type="hidden" name="head" value={String(head.seq)} />
          <button type="submit" class="primary">
            Restore version {version}
          </button>{' '}
          <a href={href(ws, 'history', path)}>Cancel</a>
        </form>
      </Layout>,
    );
  });

  app.post('/w/:ws/restore/*', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const { ws, path } = workspacePath(c);
    const version = Number(form.version);
    const head = Number(form.head);
    if (!Number.isSafeInteger(version) || !Number.isSafeInteger(head)) {
      throw new SatchelError('INVALID_INPUT', 'the form names no version', { field: 'version' });
    }
    // ifMatch: what was confirmed is what happens; a change since the confirmation refuses it.
    await signedIn.satchel.restore(ws, path, version, {
      ifMatch: head,
      session: WEB_SESSION_LABEL,
      message: `restored version ${version} from the web app`,
    });
    return c.redirect(href(ws, 'file', path), 303);
  });

  return app;
}
