/** The frame of every page: head, the header with the signed-in user, breadcrumbs, main. */
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import { encodePath } from './format.js';
import type { SignedIn } from './web-env.js';

// htmx without eval, inline script tags or its injected <style>: the page CSP allows neither.
const HTMX_CONFIG = JSON.stringify({
  allowEval: false,
  allowScriptTags: false,
  includeIndicatorStyles: false,
  selfRequestsOnly: true,
});

export interface LayoutProps {
  readonly title: string;
  readonly signedIn: SignedIn | null;
  readonly children?: Child;
}

export function Layout({ title, signedIn, children }: LayoutProps) {
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="htmx-config" content={HTMX_CONFIG} />
          <meta name="referrer" content="no-referrer" />
          <title>{`${title} · Satchel`}</title>
          <link rel="stylesheet" href="/assets/app.css" />
          <link rel="stylesheet" href="/assets/files.css" />
          <script src="/assets/htmx.min.js" defer />
        </head>
        <body
          hx-headers={
            signedIn === null ? undefined : JSON.stringify({ 'X-CSRF-Token': signedIn.csrf })
          }
        >
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <nav aria-label="Main">
              <a href="/" class="brand">
                Satchel
              </a>
              {signedIn !== null && (
                <>
                  <a href="/">Workspaces</a>
                  <a href="/sessions">Sessions</a>
                </>
              )}
            </nav>
            {signedIn !== null && (
              <form method="post" action="/logout" class="who">
                <span>
                  Signed in as <strong>{signedIn.principal}</strong>
                </span>
                <input type="hidden" name="csrf" value={signedIn.csrf} />
                <button type="submit">Sign out</button>
              </form>
            )}
          </header>
          <main id="main">{children}</main>
        </body>
      </html>
    </>
  );
}

/** Where a page is: the workspace, then each folder of `path`, the last one not a link. */
export function Breadcrumbs({ ws, path }: { readonly ws: string; readonly path: string }) {
  const segments = path.split('/').filter((s) => s !== '');
  const wsHref = `/w/${encodeURIComponent(ws)}/tree/`;
  return (
    <nav aria-label="Breadcrumb" class="crumbs">
      <ol>
        <li>
          <a href="/">Workspaces</a>
        </li>
        <li>
          {segments.length === 0 ? (
            <span aria-current="page">{ws}</span>
          ) : (
            <a href={wsHref}>{ws}</a>
          )}
        </li>
        {segments.map((segment, i) => {
          const last = i === segments.length - 1;
          const to = `/${segments.slice(0, i + 1).join('/')}`;
          return (
            <li>
              {last ? (
                <span aria-current="page">{segment}</span>
              ) : (
                <a href={`/w/${encodeURIComponent(ws)}/tree${encodePath(to)}`}>{segment}</a>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
