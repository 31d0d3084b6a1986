/**
 * Review comments: threads on a line range of a file version, replies, resolve. Listing
 * recomputes each anchor against the file's head (moved lines, or `outdated`). Viewers may
 * comment (not with a read-only key); resolving takes the thread's author or an editor.
 */
import { z } from 'zod';
import {
  AddCommentSchema,
  CommentSchema,
  CommentThreadSchema,
  ListCommentsOptionsSchema,
  pageSchema,
  ResolveCommentOptionsSchema,
} from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';

const COMMENT_ID_ARG = ['id', z.string().max(100)] as const;

export const listComments = operation({
  name: 'listComments',
  summary: 'Comment threads of a workspace or one file, newest first, anchors recomputed',
  tag: 'comments',
  args: [WORKSPACE_ARG],
  options: ListCommentsOptionsSchema,
  result: pageSchema(CommentThreadSchema),
  access: { workspace: 'comment.read' },
  mutates: false,
  auditPath: ([, options]) => options?.path ?? null,
  http: {
    method: 'GET',
    path: '/workspaces/:ws/comments',
    query: { path: 'string', status: 'string', cursor: 'string', limit: 'integer' },
  },
});

export const getComment = operation({
  name: 'getComment',
  summary: 'The thread a comment belongs to, with every reply (up to 100)',
  tag: 'comments',
  args: [WORKSPACE_ARG, COMMENT_ID_ARG],
  result: CommentThreadSchema,
  access: { workspace: 'comment.read' },
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws/comments/:id' },
});

export const addComment = operation({
  name: 'addComment',
  summary:
    'Start a thread on lines startLine–endLine of a file version, or reply to one (parentId)',
  tag: 'comments',
  args: [WORKSPACE_ARG],
  options: AddCommentSchema,
  optionsRequired: true,
  result: CommentSchema,
  access: { workspace: 'comment.write' },
  mutates: true,
  auditPath: ([, input]) => input?.path ?? null,
  http: { method: 'POST', path: '/workspaces/:ws/comments', status: 201 },
});

export const resolveComment = operation({
  name: 'resolveComment',
  summary: "Resolve a comment's thread (resolved: false reopens it)",
  tag: 'comments',
  args: [WORKSPACE_ARG, COMMENT_ID_ARG],
  options: ResolveCommentOptionsSchema,
  result: CommentThreadSchema,
  access: { workspace: 'comment.write' },
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/comments/:id/resolve' },
});
