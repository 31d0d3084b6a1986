/**
 * Review comments on a file's page (docs/web.md, "Comments"): threads anchored to a line range
 * of a version, replies, resolve and reopen, and "outdated" when the anchored lines changed.
 * Core recomputes every anchor against the head; the agent reads the same threads over MCP.
 */
import type { Satchel } from '@satchel/core';
import { Hono } from 'hono';
import { intField, textField } from '../form-fields.js';
import { encodePath, href, when } from '../format.js';
import { signedForm, workspacePath } from '../requests.js';
import type { WebEnv } from '../web-env.js';
import { WEB_SESSION_LABEL } from './history.js';

type CommentThread = Awaited<ReturnType<Satchel['listComments']>>['items'][number];
type Comment = CommentThread['replies'][number];

function commentsHref(ws: string, kind: 'comment' | 'resolve', path: string): string {
  return `/w/${encodeURIComponent(ws)}/${kind}${encodePath(path)}`;
}

function Csrf({ token }: { readonly token: string }) {
  return <input type="hidden" name="csrf" value={token} />;
}

function Said({ comment }: { readonly comment: Comment }) {
  return (
    <p class="said">
      <strong>{comment.author}</strong>
      {comment.session !== null && <span> (session {comment.session})</span>} ·{' '}
      <time datetime={comment.createdAt}>{when(comment.createdAt)}</time>
    </p>
  );
}

function lines(range: { startLine: number; endLine: number }): string {
  return range.startLine === range.endLine
    ? `line ${range.startLine}`
    : `lines ${range.startLine}–${range.endLine}`;
}

interface ThreadProps {
  readonly ws: string;
  readonly path: string;
  readonly thread: CommentThread;
  readonly csrf: string;
}

function Thread({ ws, path, thread, csrf }: ThreadProps) {
  const id = `thread-${thread.id}`;
  const state = thread.resolved ? 'Resolved' : thread.outdated ? 'Outdated' : 'Open';
  return (
    <article
      class={`thread${thread.resolved ? ' resolved' : ''}`}
      id={id}
      aria-labelledby={`${id}-h`}
    >
      <h3 id={`${id}-h`}>
        {`On ${lines(thread.anchor)} of version ${thread.anchor.version}`}{' '}
        <span class={`badge ${state.toLowerCase()}`}>{state}</span>
      </h3>
      {thread.outdated ? (
        <p class="notice">These lines have changed since the comment was written.</p>
      ) : (
        thread.current !== null &&
        thread.current.startLine !== thread.anchor.startLine && (
          <p>
            Now{' '}
            <a href={`${href(ws, 'file', path)}#L${thread.current.startLine}`}>
              {lines(thread.current)}
            </a>
            .
          </p>
        )
      )}
      {thread.excerpt !== null && <pre class="excerpt">{thread.excerpt}</pre>}
      <Said comment={thread} />
      <p class="body">{thread.body}</p>
      {thread.replies.length > 0 && (
        <ol class="replies" aria-label="Replies">
          {thread.replies.map((reply) => (
            <li>
              <Said comment={reply} />
              <p class="body">{reply.body}</p>
            </li>
          ))}
        </ol>
      )}
      {thread.resolved && thread.resolvedBy !== null && (
        <p>
          Resolved by <strong>{thread.resolvedBy}</strong>
          {thread.resolvedAt !== null && ` on ${when(thread.resolvedAt)}`}.
        </p>
      )}
      <form method="post" action={commentsHref(ws, 'comment', path)} class="reply">
        <Csrf token={csrf} />
        <input type="hidden" name="parentId" value={thread.id} />
        <label for={`${id}-reply`}>Reply</label>
        <textarea id={`${id}-reply`} name="body" rows={2} required />
        <button type="submit">Reply</button>
      </form>
      <form method="post" action={commentsHref(ws, 'resolve', path)}>
        <Csrf token={csrf} />
        <input type="hidden" name="id" value={thread.id} />
        <input type="hidden" name="resolved" value={thread.resolved ? 'false' : 'true'} />
        <button type="submit">{thread.resolved ? 'Reopen' : 'Resolve'}</button>
      </form>
    </article>
  );
}

export interface CommentsProps {
  readonly satchel: Satchel;
  readonly ws: string;
  readonly path: string;
  /** The version shown: new comments anchor to its lines. */
  readonly version: number;
  readonly csrf: string;
}

/** The comments section of a file's page: every thread on the file, and the form for a new one. */
export async function CommentsSection({ satchel, ws, path, version, csrf }: CommentsProps) {
  const { items } = await satchel.listComments(ws, { path, status: 'all', limit: 200 });
  const open = items.filter((t) => !t.resolved).length;
  return (
    <section id="comments" aria-labelledby="comments-title" class="comments">
      <h2 id="comments-title">Comments</h2>
      <p>
        {items.length === 0
          ? 'No comments on this file yet.'
          : `${items.length} thread${items.length === 1 ? '' : 's'}, ${open} open.`}
      </p>
      {items.map((thread) => (
        <Thread ws={ws} path={path} thread={thread} csrf={csrf} />
      ))}
      <form method="post" action={commentsHref(ws, 'comment', path)} class="new-comment">
        <h3>Comment on lines of version {version}</h3>
        <p class="meta" id="comment-hint">
          Select lines in the preview, or type their numbers.
        </p>
        <Csrf token={csrf} />
        <input type="hidden" name="version" value={String(version)} />
        <div class="line-range">
          <label for="comment-start">From line</label>
          <input
            id="comment-start"
            class="line-no"
            name="startLine"
            type="number"
            min="1"
            inputmode="numeric"
            required
          />
          <label for="comment-end">to line</label>
          <input
            id="comment-end"
            class="line-no"
            name="endLine"
            type="number"
            min="1"
            inputmode="numeric"
          />
        </div>
        <label for="comment-body">Comment</label>
        <textarea id="comment-body" name="body" rows={3} required />
        <button type="submit">Add comment</button>
      </form>
      <script src="/assets/comments.js" defer />
    </section>
  );
}

/** The form routes: add a thread or a reply; resolve or reopen. Each redirects to the file. */
export function commentRoutes(): Hono<WebEnv> {
  const app = new Hono<WebEnv>();

  app.post('/w/:ws/comment/*', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const { ws, path } = workspacePath(c);
    const body = textField(form, 'body');
    const parentId = form.parentId ?? '';
    const startLine = intField(form, 'startLine');
    const added = await signedIn.satchel.addComment(ws, {
      path,
      body,
      session: WEB_SESSION_LABEL,
      ...(parentId !== ''
        ? { parentId }
        : {
            version: intField(form, 'version'),
            startLine,
            endLine: intField(form, 'endLine') ?? startLine,
          }),
    });
    return c.redirect(`${href(ws, 'file', path)}#thread-${added.threadId}`, 303);
  });

  app.post('/w/:ws/resolve/*', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const { ws, path } = workspacePath(c);
    const id = textField(form, 'id');
    await signedIn.satchel.resolveComment(ws, id, {
      resolved: form.resolved !== 'false',
      session: WEB_SESSION_LABEL,
    });
    return c.redirect(`${href(ws, 'file', path)}#thread-${id}`, 303);
  });

  return app;
}
