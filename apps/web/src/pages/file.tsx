/** A file's page (metadata and preview) and its raw content route. */
import type { FileInfo } from '@satchel/core';
import { Hono } from 'hono';
import { raw } from 'hono/html';
import { bytesFor, firstLines, linesParam, moreLines } from '../bounded.js';
import { bodyOf, rawHeaders, readHead } from '../content.js';
import { baseName, href, size, when } from '../format.js';
import { Breadcrumbs, Layout } from '../layout.js';
import { PREVIEW_BYTES, previewKind, renderMarkdown, trimPartial } from '../preview.js';
import { requireSignIn, seqParam, workspacePath } from '../requests.js';
import type { WebEnv } from '../web-env.js';
import { CommentsSection } from './comments.js';
import { ManageLinks } from './manage.js';
import { manageHref } from './manage-nav.js';

/** Text as numbered lines; each line has an anchor (`#L12`) that comments can point at later. */
export function CodeView({ text, label }: { readonly text: string; readonly label: string }) {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return (
    <section class="scroll" aria-label={label} tabindex={0}>
      <pre class="code">
        <code>
          {lines.map((line, i) => (
            <span class="line" id={`L${i + 1}`}>
              {line}
              {'\n'}
            </span>
          ))}
        </code>
      </pre>
    </section>
  );
}

/** The first lines of a text file, and the way to more of it: Show more, or Download. */
function BoundedCode(props: {
  readonly text: string;
  readonly shown: number;
  readonly more: boolean;
  readonly label: string;
  readonly lines: number;
  readonly download: string;
}) {
  const next = moreLines(props.lines);
  return (
    <>
      <CodeView text={props.text} label={props.label} />
      {props.more && (
        <p class="notice more-lines">
          Showing the first {props.shown.toLocaleString('en')} lines.{' '}
          {next !== null && <a href={`?lines=${next}`}>Show more</a>}{' '}
          <a href={props.download}>Download</a> for all of it.
        </p>
      )}
    </>
  );
}

function Meta({ info }: { readonly info: FileInfo }) {
  return (
    <dl class="meta-list">
      <dt>Size</dt>
      <dd>{size(info.size)}</dd>
      <dt>Type</dt>
      <dd>{info.contentType ?? 'unknown'}</dd>
      <dt>Author</dt>
      <dd>{info.author}</dd>
      <dt>Session</dt>
      <dd>{info.session ?? '—'}</dd>
      <dt>Modified</dt>
      <dd>
        <time datetime={info.modifiedAt}>{when(info.modifiedAt)}</time>
      </dd>
      <dt>Version</dt>
      <dd>{info.seq}</dd>
      <dt>SHA-256</dt>
      <dd class="hash">{info.hash ?? '—'}</dd>
    </dl>
  );
}

export function fileRoutes(): Hono<WebEnv> {
  const app = new Hono<WebEnv>();

  app.get('/w/:ws/file/*', async (c) => {
    const signedIn = requireSignIn(c);
    const { ws, path } = workspacePath(c);
    const version = seqParam(c, 'version');
    const at = version === undefined ? {} : { version };
    const info = await signedIn.satchel.stat(ws, path, at);
    if (info.type === 'directory') return c.redirect(href(ws, 'tree', path), 303);
    const lines = linesParam(c);
    const ext = /\.(md|markdown)$/i.test(path);
    const budget = ext ? PREVIEW_BYTES : bytesFor(lines);
    const head = await readHead(signedIn.satchel, ws, path, version, info.size, budget);
    const kind = previewKind(path, info.contentType, head);
    const query = version === undefined ? '' : `?version=${version}`;
    const rawUrl = `${href(ws, 'raw', path)}${query}`;
    const download = `${href(ws, 'raw', path)}?download=1${version === undefined ? '' : `&version=${version}`}`;
    const truncated = info.size > head.length;
    const text = () => new TextDecoder().decode(trimPartial(head));
    const bounded = () => firstLines(text(), lines, truncated);
    const name = baseName(path);
    return c.html(
      <Layout title={`${name} · ${ws}`} signedIn={signedIn}>
        <Breadcrumbs ws={ws} path={path} />
        <h1>{name}</h1>
        {version !== undefined && (
          <p class="notice">
            You are looking at version {version}.{' '}
            <a href={href(ws, 'file', path)}>See the current one</a>.
          </p>
        )}
        <p class="actions">
          <a href={href(ws, 'history', path)}>History</a>
          <ManageLinks ws={ws} path={path} />
          <a href={manageHref(ws, 'share', path)}>Share</a>
          <a href={download} download>
            Download
          </a>
        </p>
        <Meta info={info} />
        <section aria-labelledby="preview-title" class="preview">
          <h2 id="preview-title">Preview</h2>
          {truncated && kind === 'markdown' && (
            <p class="notice">
              Showing the first {size(head.length)} of {size(info.size)}. Download the file for all
              of it.
            </p>
          )}
          {kind === 'markdown' && <article class="markdown">{raw(renderMarkdown(text()))}</article>}
          {kind === 'text' && (
            <BoundedCode
              {...bounded()}
              label={`Contents of ${name}`}
              lines={lines}
              download={download}
            />
          )}
          {kind === 'active' && (
            <>
              <p class="notice" role="note">
                This file is HTML, SVG or XML written by an agent. It is shown as source and never
                opened as a page here; download it to open it.
              </p>
              <BoundedCode
                {...bounded()}
                label={`Source of ${name}`}
                lines={lines}
                download={download}
              />
            </>
          )}
          {kind === 'image' && <img class="image" src={rawUrl} alt={`Preview of ${name}`} />}
          {kind === 'pdf' && (
            <object class="pdf" data={rawUrl} type="application/pdf" aria-label={`PDF ${name}`}>
              <p>
                Your browser cannot show this PDF here. <a href={download}>Download it</a>.
              </p>
            </object>
          )}
          {kind === 'binary' && (
            <p>
              A binary file ({info.contentType ?? 'unknown type'}, {size(info.size)}); it has no
              preview. <a href={download}>Download it</a>.
            </p>
          )}
        </section>
        <CommentsSection
          satchel={signedIn.satchel}
          ws={ws}
          path={path}
          version={info.seq}
          csrf={signedIn.csrf}
        />
      </Layout>,
    );
  });

  app.get('/w/:ws/raw/*', async (c) => {
    const signedIn = requireSignIn(c);
    const { ws, path } = workspacePath(c);
    const version = seqParam(c, 'version');
    const stream = await signedIn.satchel.readFile(
      ws,
      path,
      version === undefined ? {} : { version },
    );
    const { info } = stream;
    const headers = rawHeaders(path, info.contentType, info.size, c.req.query('download') === '1');
    return c.body(bodyOf(stream), 200, headers);
  });

  return app;
}
