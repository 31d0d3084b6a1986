/**
 * Share links of a workspace (docs/web.md, "Share links"): create one for a file or folder
 * (expiry, optional password — hashed by core — and a download limit), list, revoke. What a
 * visitor sees at `/share/<token>` is share-view.tsx.
 */
import type { SatchelEngine } from '@satchel/core';
import { type Context, Hono } from 'hono';
import { choiceField, intField, remaining, textField } from '../form-fields.js';
import { href, when } from '../format.js';
import { Layout } from '../layout.js';
import { requireSignIn, signedForm } from '../requests.js';
import { expectedOrigin } from '../security.js';
import type { SignedIn, WebEnv } from '../web-env.js';
import { WEB_SESSION_LABEL } from './history.js';
import { manageHref, WorkspaceNav } from './manage-nav.js';
import { shareViewRoutes } from './share-view.js';

const EXPIRIES = { '3600': '1 hour', '86400': '1 day', '604800': '7 days', '2592000': '30 days' };
const EXPIRY_SECONDS = Object.keys(EXPIRIES) as (keyof typeof EXPIRIES)[];

interface Created {
  readonly url: string;
  readonly path: string;
}

async function sharePage(
  c: Context<WebEnv>,
  signedIn: SignedIn,
  ws: string,
  created: Created | null = null,
) {
  const { satchel, csrf } = signedIn;
  const { items } = await satchel.listShareLinks(ws, { limit: 200 });
  const path = c.req.query('path') ?? created?.path ?? '/';
  return c.html(
    <Layout title={`Share links · ${ws}`} signedIn={signedIn}>
      <h1>Share links of {ws}</h1>
      <WorkspaceNav ws={ws} current="share" />
      {created !== null && (
        <div class="notice" role="status">
          <p>
            Link to <code>{created.path}</code> created. Copy it now: it is not shown again.
          </p>
          <label for="new-link">Link</label>
          <input id="new-link" class="hash secret" value={created.url} readonly />
        </div>
      )}
      <form method="post" action={manageHref(ws, 'share')} class="stack">
        <h2>Share a file or folder</h2>
        <input type="hidden" name="csrf" value={csrf} />
        <label for="share-path">Path</label>
        <input id="share-path" name="path" value={path} required />
        <label for="share-expiry">Expires after</label>
        <select id="share-expiry" name="expiresIn">
          {EXPIRY_SECONDS.map((s) => (
            <option value={s} selected={s === '604800'}>
              {EXPIRIES[s]}
            </option>
          ))}
        </select>
        <label for="share-password">Password (optional, at least 8 characters)</label>
        <input id="share-password" name="password" type="password" autocomplete="new-password" />
        <label for="share-limit">Download limit (optional)</label>
        <input id="share-limit" name="maxDownloads" type="number" min="1" inputmode="numeric" />
        <button type="submit">Create link</button>
      </form>
      <section aria-labelledby="links-title">
        <h2 id="links-title">Links</h2>
        {items.length === 0 ? (
          <p>No share links yet.</p>
        ) : (
          <ul class="plain">
            {items.map((link) => (
              <li class="share-link">
                <a href={href(ws, link.kind === 'file' ? 'file' : 'tree', link.path)}>
                  {link.path}
                </a>{' '}
                <span class={`badge ${link.state}`}>{link.state.replace('_', ' ')}</span>
                <br />
                by {link.createdBy}, {when(link.createdAt)}; expires{' '}
                <time datetime={link.expiresAt}>{remaining(link.expiresAt)}</time>
                {link.hasPassword && '; password'}; {link.downloads}
                {link.maxDownloads === null ? '' : ` of ${link.maxDownloads}`} downloads
                {link.state === 'active' && (
                  <form method="post" action={`${manageHref(ws, 'share')}/revoke`} class="inline">
                    <input type="hidden" name="csrf" value={csrf} />
                    <input type="hidden" name="id" value={link.id} />
                    <button type="submit" aria-label={`Revoke the link to ${link.path}`}>
                      Revoke
                    </button>
                  </form>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
    </Layout>,
    created === null ? 200 : 201,
  );
}

export function shareRoutes(engine: SatchelEngine): Hono<WebEnv> {
  const app = new Hono<WebEnv>();

  app.get('/w/:ws/share', (c) => sharePage(c, requireSignIn(c), c.req.param('ws')));

  app.post('/w/:ws/share', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const ws = c.req.param('ws');
    const password = form.password ?? '';
    const maxDownloads = intField(form, 'maxDownloads');
    const link = await signedIn.satchel.createShareLink(ws, {
      path: textField(form, 'path'),
      expiresIn: Number(choiceField(form, 'expiresIn', EXPIRY_SECONDS) ?? '604800'),
      session: WEB_SESSION_LABEL,
      ...(password === '' ? {} : { password }),
      ...(maxDownloads === undefined ? {} : { maxDownloads }),
    });
    // `/s/<token>`: a browser opening it is sent to the link's page (/share/<token>).
    const url = /^https?:/.test(link.url) ? link.url : `${expectedOrigin(c)}${link.url}`;
    return sharePage(c, signedIn, ws, { url, path: link.path });
  });

  app.post('/w/:ws/share/revoke', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const ws = c.req.param('ws');
    await signedIn.satchel.revokeShareLink(ws, textField(form, 'id'));
    return c.redirect(manageHref(ws, 'share'), 303);
  });

  app.route('/', shareViewRoutes(engine));
  return app;
}
