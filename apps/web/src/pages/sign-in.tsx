/** Signing in by link, signing out, and the list of one's browser sessions with revoke. */
import { type SatchelEngine, WEB_SESSION_SECONDS } from '@satchel/core';
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { when } from '../format.js';
import { Layout } from '../layout.js';
import { plainForm, requireSignIn, signedForm } from '../requests.js';
import { cookieName, cookieOptions } from '../security.js';
import type { WebEnv } from '../web-env.js';

export function signInRoutes(engine: SatchelEngine): Hono<WebEnv> {
  const app = new Hono<WebEnv>();

  // Opening the link only shows a button: link scanners and previews that fetch URLs must not
  // use up the one-time token; the POST does.
  app.get('/login', (c) => {
    const token = c.req.query('token') ?? '';
    return c.html(
      <Layout title="Sign in" signedIn={c.get('signedIn')}>
        <h1>Sign in to Satchel</h1>
        {token === '' ? (
          <p>
            Ask the person who runs this Satchel for a sign-in link (
            <code>satchel login-link --principal YOUR-NAME</code>) and open it in this browser.
          </p>
        ) : (
          <form method="post" action="/login" class="card">
            <p>This link signs you in once. It stops working when used or after a few minutes.</p>
            <input type="hidden" name="token" value={token} />
            <button type="submit" class="primary">
              Sign in
            </button>
          </form>
        )}
      </Layout>,
    );
  });

  app.post('/login', async (c) => {
    const { token = '' } = await plainForm(c);
    const started = await engine.signInWithLink(token, {
      userAgent: c.req.header('User-Agent') ?? null,
    });
    const secure = c.get('secure');
    setCookie(c, cookieName(secure), started.cookie, cookieOptions(secure, WEB_SESSION_SECONDS));
    return c.redirect('/', 303);
  });

  app.post('/logout', async (c) => {
    await signedForm(c);
    const name = cookieName(c.get('secure'));
    const cookie = getCookie(c, name);
    if (cookie !== undefined) await engine.signOutWebSession(cookie);
    deleteCookie(c, name, { path: '/', secure: c.get('secure') });
    return c.redirect('/login', 303);
  });

  app.get('/sessions', async (c) => {
    const signedIn = requireSignIn(c);
    const sessions = await signedIn.satchel.listWebSessions();
    return c.html(
      <Layout title="Sessions" signedIn={signedIn}>
        <h1>Your sessions</h1>
        <p>
          Browsers signed in as {signedIn.principal}. A session ends on its own 7 days after
          sign-in; revoke one you do not recognise.
        </p>
        <div class="scroll">
          <table>
            <caption class="visually-hidden">Signed-in browsers</caption>
            <thead>
              <tr>
                <th scope="col">Browser</th>
                <th scope="col">Signed in</th>
                <th scope="col">Last seen</th>
                <th scope="col">Ends</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr>
                  <td>
                    {s.userAgent ?? 'unknown browser'}
                    {s.id === signedIn.session.id && <strong> (this one)</strong>}
                  </td>
                  <td>
                    <time datetime={s.createdAt}>{when(s.createdAt)}</time>
                  </td>
                  <td>
                    <time datetime={s.lastSeenAt}>{when(s.lastSeenAt)}</time>
                  </td>
                  <td>
                    <time datetime={s.expiresAt}>{when(s.expiresAt)}</time>
                  </td>
                  <td>
                    <form method="post" action={`/sessions/${encodeURIComponent(s.id)}/revoke`}>
                      <input type="hidden" name="csrf" value={signedIn.csrf} />
                      <button
                        type="submit"
                        aria-label={`Revoke the session signed in ${when(s.createdAt)}`}
                      >
                        Revoke
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Layout>,
    );
  });

  app.post('/sessions/:id/revoke', async (c) => {
    const { signedIn } = await signedForm(c);
    const id = c.req.param('id');
    await signedIn.satchel.revokeWebSession(id);
    if (id === signedIn.session.id) {
      deleteCookie(c, cookieName(c.get('secure')), { path: '/', secure: c.get('secure') });
      return c.redirect('/login', 303);
    }
    return c.redirect('/sessions', 303);
  });

  return app;
}
