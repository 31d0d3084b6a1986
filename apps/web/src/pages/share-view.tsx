/**
 * What a person without an account sees at `/share/<token>[/<path>]` (docs/web.md, "Share
 * links"): no session needed. A folder's listing or a file's details, read-only; the bytes come
 * from `/s/<token>` (the API's route, which counts downloads). Core checks the link — state,
 * password, path — and audits every view as `share:<link id>`. Refused links get a page saying
 * why: 404 unknown, 410 expired, revoked or used up, 401 for the password.
 */
import { type SatchelEngine, SatchelError, type ShareView } from '@satchel/core';
import { type Context, Hono } from 'hono';
import { baseName, encodePath, size, when } from '../format.js';
import { Layout } from '../layout.js';
import { plainForm } from '../requests.js';
import type { WebEnv } from '../web-env.js';

interface Where {
  readonly token: string;
  /** Below the shared folder ("/" for the link itself). */
  readonly path: string;
}

function whereOf(c: Context<WebEnv>): Where {
  const [, , token = '', ...rest] = new URL(c.req.url).pathname.split('/');
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw new SatchelError('INVALID_PATH', `malformed URL segment ${s.slice(0, 100)}`);
    }
  };
  return {
    token: decode(token),
    path: `/${rest
      .filter((s) => s !== '')
      .map(decode)
      .join('/')}`,
  };
}

function pageHref({ token, path }: Where): string {
  return `/share/${encodeURIComponent(token)}${path === '/' ? '' : encodePath(path)}`;
}

function bytesHref({ token, path }: Where, download: boolean): string {
  const below = path === '/' ? '' : encodePath(path);
  return `/s/${encodeURIComponent(token)}${below}${download ? '?download=1' : '?raw=1'}`;
}

/** A link to `to`, or — when a password is in play — a button posting it there again. */
function Go(props: {
  readonly to: string;
  readonly password: string | null;
  readonly label: string;
}) {
  if (props.password === null) return <a href={props.to}>{props.label}</a>;
  return (
    <form method="post" action={props.to} class="inline">
      <input type="hidden" name="password" value={props.password} />
      <button type="submit" class="link">
        {props.label}
      </button>
    </form>
  );
}

function View({ at, view, password }: { at: Where; view: ShareView; password: string | null }) {
  if (view.type === 'file') {
    const { info } = view.file;
    return (
      <>
        <h1>{baseName(at.path === '/' ? info.path : at.path)}</h1>
        <dl class="meta-list">
          <dt>Size</dt>
          <dd>{size(info.size)}</dd>
          <dt>Type</dt>
          <dd>{info.contentType ?? 'unknown'}</dd>
          <dt>Modified</dt>
          <dd>{when(info.modifiedAt)}</dd>
        </dl>
        <p class="actions">
          <Go to={bytesHref(at, false)} password={password} label="Open" />
          <Go to={bytesHref(at, true)} password={password} label="Download" />
        </p>
      </>
    );
  }
  const { folder } = view;
  return (
    <>
      <h1>{at.path === '/' ? 'Shared folder' : baseName(at.path)}</h1>
      {at.path !== '/' && (
        <p>
          <Go to={pageHref({ ...at, path: '/' })} password={password} label="Back to the top" />
        </p>
      )}
      {folder.items.length === 0 ? (
        <p>This folder is empty.</p>
      ) : (
        <ul class="plain shared">
          {folder.items.map((item) => {
            const path = `${at.path === '/' ? '' : at.path}/${baseName(item.path)}`;
            return (
              <li>
                <Go
                  to={pageHref({ ...at, path })}
                  password={password}
                  label={`${baseName(item.path)}${item.type === 'directory' ? '/' : ''}`}
                />{' '}
                {item.type === 'file' && <span class="meta">{size(item.size)}</span>}
              </li>
            );
          })}
        </ul>
      )}
      <p>This link stops working on {when(folder.expiresAt)}.</p>
    </>
  );
}

const GONE: Record<string, string> = {
  revoked: 'This link was revoked',
  expired: 'This link has expired',
  download_limit: 'This link has reached its download limit',
};

async function show(engine: SatchelEngine, c: Context<WebEnv>, password: string | null) {
  c.header('X-Robots-Tag', 'noindex');
  const at = whereOf(c);
  let view: ShareView;
  try {
    view = await engine.openShareLink(at.token, {
      path: at.path,
      download: false,
      ...(password === null ? {} : { password }),
    });
  } catch (error) {
    if (!(error instanceof SatchelError)) throw error;
    const reason = String(error.data.reason ?? '');
    if (error.code === 'UNAUTHENTICATED') {
      return c.html(
        <Layout title="Password needed" signedIn={null}>
          <h1>This link needs a password</h1>
          {reason === 'wrong_password' && <p role="alert">That password is not right.</p>}
          <form method="post" action={pageHref(at)} class="stack">
            <label for="share-password">Password</label>
            <input id="share-password" name="password" type="password" required />
            <button type="submit">Open</button>
          </form>
        </Layout>,
        401,
      );
    }
    const gone = GONE[reason];
    const unknown = error.code === 'NOT_FOUND' && reason === 'unknown';
    if (gone === undefined && !unknown) throw error;
    return c.html(
      <Layout title="Link not available" signedIn={null}>
        <h1>{gone ?? 'This link does not exist'}</h1>
        <p role="alert">{error.message}</p>
      </Layout>,
      unknown ? 404 : 410,
    );
  }
  // The details only: the bytes are fetched (and counted) from /s/<token>.
  if (view.type === 'file') view.file.body.destroy();
  return c.html(
    <Layout title="Shared with you" signedIn={null}>
      <p class="notice">Shared read-only through Satchel. No account needed.</p>
      <View at={at} view={view} password={password} />
    </Layout>,
  );
}

export function shareViewRoutes(engine: SatchelEngine): Hono<WebEnv> {
  const app = new Hono<WebEnv>();
  const get = (c: Context<WebEnv>) => show(engine, c, null);
  const post = async (c: Context<WebEnv>) => show(engine, c, (await plainForm(c)).password ?? '');
  app.get('/share/:token', get);
  app.get('/share/:token/*', get);
  app.post('/share/:token', post);
  app.post('/share/:token/*', post);
  return app;
}
