/**
 * Review comments (issue 17, item 4): a thread starts on lines startLine–endLine of a version
 * of a text file; replies join it; its author or an editor resolves it. Listing recomputes
 * each anchor against the head (comment-threads.ts). Adding and resolving queue the
 * `comment.created` / `comment.resolved` webhook events in the same transaction.
 */
import { randomBytes } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizeFilePath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type AddComment,
  AddCommentSchema,
  type Comment,
  type CommentThread,
  type ListCommentsOptions,
  ListCommentsOptionsSchema,
  type Page,
  type ResolveCommentOptions,
  ResolveCommentOptionsSchema,
} from '@satchel/client/schemas/index.js';
import { effectiveRole } from '../auth/authorize.js';
import { ROLE_RANK } from '../kernel/actor.js';
import { isBinary, readWhole } from '../kernel/content.js';
import {
  type EngineContext,
  isRedacted,
  notFound,
  redactedError,
  requireWorkspace,
} from '../kernel/context.js';
import { decodeCursor, encodeCursor } from '../kernel/cursors.js';
import type { CommentRecord, MetadataQueries } from '../store/metadata/metadata-store.js';
import { enqueueCommentEvent } from '../webhooks/comment-events.js';
import { linesOf } from './comment-anchors.js';
import { commentOut, threadsOut } from './comment-threads.js';
import { resolveVersion } from './history.js';

const DEFAULT_LIMIT = 50;

function invalid(message: string, field: string): SatchelError {
  return new SatchelError('INVALID_INPUT', message, { field });
}

function commentNotFound(id: string): SatchelError {
  return new SatchelError('NOT_FOUND', `comment ${id} not found`, { comment: id });
}

async function requireComment(
  q: MetadataQueries,
  workspaceId: string,
  id: string,
): Promise<CommentRecord> {
  const row = await q.comments.byId(workspaceId, id);
  if (!row) throw commentNotFound(id);
  return row;
}

/**
 * The anchor of a new thread, checked against the version it names (the head by default):
 * NOT_FOUND for no such file or version, REDACTED for redacted content, INVALID_INPUT for a
 * directory, a binary file, or lines outside the version; TOO_LARGE past maxTextBytes.
 */
async function checkedAnchor(
  ctx: EngineContext,
  workspaceId: string,
  path: string,
  input: AddComment,
): Promise<{ version: number; startLine: number; endLine: number }> {
  const { startLine, endLine } = input;
  if (startLine === undefined || endLine === undefined) {
    throw invalid('a new thread needs startLine and endLine (1-based, inclusive)', 'startLine');
  }
  if (endLine < startLine) throw invalid('endLine must not be before startLine', 'endLine');
  const row =
    input.version === undefined
      ? await ctx.store.getVersion(workspaceId, path)
      : await resolveVersion(ctx.store, workspaceId, path, input.version);
  const label = input.version === undefined ? path : `${path}@${input.version}`;
  if (!row || row.deleted) throw notFound(label, input.version === undefined ? 'file' : 'version');
  if (row.type !== 'file') throw invalid(`${path} is a directory; comment on a file`, 'path');
  if (isRedacted(row)) throw redactedError(row.path, row.seq);
  const bytes = await readWhole(
    ctx,
    ctx.store,
    row.hash ?? '',
    ctx.limits.maxTextBytes,
    'comments',
  );
  if (isBinary(bytes)) throw invalid(`${path} is binary; comments anchor to lines of text`, 'path');
  const count = linesOf(bytes.toString('utf8')).length;
  if (endLine > count) {
    throw new SatchelError(
      'INVALID_INPUT',
      `${path} has ${count} lines at version ${row.seq}; endLine ${endLine} is past them`,
      { field: 'endLine', lines: count, version: row.seq },
    );
  }
  return { version: row.seq, startLine, endLine };
}

/** Starts a thread (path + lines) or replies to one (parentId); returns the new comment. */
export async function addComment(
  ctx: EngineContext,
  workspace: string,
  rawInput: AddComment,
): Promise<Comment> {
  validateWorkspaceName(workspace);
  const input = parseOptions(AddCommentSchema, rawInput);
  const reply = input.parentId !== undefined;
  if (reply && (input.path !== undefined || input.startLine !== undefined)) {
    throw invalid('a reply takes parentId and body only: it joins the thread there', 'parentId');
  }
  if (!reply && input.path === undefined) {
    throw invalid('give path and lines for a new thread, or parentId to reply', 'path');
  }
  const ws = await requireWorkspace(ctx.store, workspace);
  const path = reply ? null : normalizeFilePath(input.path);
  const anchor = path === null ? null : await checkedAnchor(ctx, ws.id, path, input);
  const id = `cm_${randomBytes(9).toString('hex')}`;
  const now = ctx.clock();
  return ctx.commit(async (tx) => {
    const current = await requireWorkspace(tx, workspace);
    let row: CommentRecord;
    const common = {
      id,
      workspaceId: current.id,
      body: input.body,
      author: ctx.actor.name,
      session: input.session ?? null,
      createdAt: now,
      resolvedAt: null,
      resolvedBy: null,
    };
    if (input.parentId !== undefined) {
      const parent = await requireComment(tx, current.id, input.parentId);
      row = {
        ...common,
        threadId: parent.threadId,
        parentId: parent.id,
        path: parent.path,
        anchor,
      };
    } else {
      row = { ...common, threadId: id, parentId: null, path: path ?? '/', anchor };
    }
    await tx.comments.insert(row);
    const out = commentOut(row);
    await enqueueCommentEvent(
      tx,
      current,
      'comment.created',
      row.path,
      row.id,
      { ...out, anchor },
      now,
    );
    return out;
  });
}

export async function listComments(
  ctx: EngineContext,
  workspace: string,
  rawOptions?: ListCommentsOptions,
): Promise<Page<CommentThread>> {
  validateWorkspaceName(workspace);
  const options = parseOptions(ListCommentsOptionsSchema, rawOptions);
  const limit = options.limit ?? DEFAULT_LIMIT;
  const path = options.path === undefined ? null : normalizeFilePath(options.path);
  const ws = await requireWorkspace(ctx.store, workspace);
  const cursor = decodeCursor(options.cursor, ['t', 'i']);
  const before = cursor ? { createdAt: Number(cursor.t), id: String(cursor.i) } : null;
  const filter = { path, status: options.status ?? 'all' };
  const rows = await ctx.store.comments.threads(ws.id, filter, before, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: await threadsOut(ctx, ws, page),
    nextCursor:
      rows.length > limit && last ? encodeCursor({ t: last.createdAt, i: last.id }) : null,
  };
}

/** The thread of comment `id` (a thread's first comment or one of its replies). */
export async function getComment(
  ctx: EngineContext,
  workspace: string,
  id: string,
): Promise<CommentThread> {
  validateWorkspaceName(workspace);
  const ws = await requireWorkspace(ctx.store, workspace);
  const row = await requireComment(ctx.store, ws.id, String(id));
  const root = row.parentId === null ? row : await requireComment(ctx.store, ws.id, row.threadId);
  const [thread] = await threadsOut(ctx, ws, [root]);
  if (!thread) throw commentNotFound(id);
  return thread;
}

/**
 * Resolves (or, `resolved: false`, reopens) the thread of comment `id`. The thread's author
 * may, and editors and owners may; anyone else is FORBIDDEN. Doing it twice changes nothing
 * and sends no second event.
 */
export async function resolveComment(
  ctx: EngineContext,
  workspace: string,
  id: string,
  rawOptions?: ResolveCommentOptions,
): Promise<CommentThread> {
  validateWorkspaceName(workspace);
  const options = parseOptions(ResolveCommentOptionsSchema, rawOptions);
  const resolved = options.resolved ?? true;
  const now = ctx.clock();
  await ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const row = await requireComment(tx, ws.id, String(id));
    const root = row.parentId === null ? row : await requireComment(tx, ws.id, row.threadId);
    const role = await effectiveRole(tx, ctx.actor, ws);
    if (root.author !== ctx.actor.name && (role === null || ROLE_RANK[role] < ROLE_RANK.editor)) {
      throw new SatchelError(
        'FORBIDDEN',
        `${ctx.actor.name} may not ${resolved ? 'resolve' : 'reopen'} a thread started by ` +
          `${root.author}: that takes its author or an editor`,
        { reason: 'role', role, needed: 'editor' },
      );
    }
    const changed = await tx.comments.setResolved(
      ws.id,
      root.id,
      resolved ? now : null,
      resolved ? ctx.actor.name : null,
    );
    if (changed && resolved) {
      await enqueueCommentEvent(
        tx,
        ws,
        'comment.resolved',
        root.path,
        root.id,
        {
          id: root.id,
          path: root.path,
          resolvedBy: ctx.actor.name,
          resolvedAt: new Date(now).toISOString(),
        },
        now,
      );
    }
    return root.id;
  });
  return getComment(ctx, workspace, id);
}
