/**
 * Review comments, the agent's side of the review loop: list_comments (open threads, anchors
 * recomputed against the head), add_comment (a thread on lines, or a reply with parentId),
 * resolve_comment once addressed (reopening is a person's call: REST and the CLI). Getting one thread stays with REST and the CLI: the listing
 * already carries every thread's replies.
 */
import type { CommentThread } from '@satchel/core/schemas';
import { type AnyTool, argOf, defineTool, optionsOf, resultOf, WorkspaceArg } from '../tool.js';

const list = optionsOf('listComments').shape;
const add = optionsOf('addComment').shape;
const page = resultOf('listComments').shape;

function threadText(t: CommentThread): string {
  const lines = `L${t.anchor.startLine}-${t.anchor.endLine}@${t.anchor.version}`;
  const where = t.current
    ? `now L${t.current.startLine}-${t.current.endLine}`
    : `outdated, was: ${JSON.stringify(t.excerpt ?? '[redacted]')}`;
  const state = t.resolved ? `resolved by ${t.resolvedBy}` : 'open';
  const head = `${t.id} ${t.path} ${lines} (${where}) [${state}] ${t.author}: ${t.body}`;
  return [head, ...t.replies.map((r) => `  ${r.id} ${r.author}: ${r.body}`)].join('\n');
}

const listComments = defineTool({
  name: 'list_comments',
  title: 'List comments',
  description: 'Review threads on files, anchors moved to the head or outdated.',
  operation: 'listComments',
  input: {
    workspace: WorkspaceArg,
    path: list.path,
    status: list.status,
    cursor: list.cursor,
  },
  output: { threads: page.items, nextCursor: page.nextCursor },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const { workspace: _, ...options } = args;
    const found = await ctx.satchel.listComments(ws, options);
    const lines = found.items.map(threadText);
    if (lines.length === 0) lines.push('[no comments]');
    if (found.nextCursor !== null) lines.push(`[more with cursor=${found.nextCursor}]`);
    return {
      structured: { threads: found.items, nextCursor: found.nextCursor },
      text: lines.join('\n'),
    };
  },
});

const addComment = defineTool({
  name: 'add_comment',
  title: 'Add comment',
  description: 'Comment on lines of a file, or reply to a thread (parentId).',
  operation: 'addComment',
  hints: { destructive: false, idempotent: false },
  input: {
    workspace: WorkspaceArg,
    path: add.path,
    startLine: add.startLine,
    endLine: add.endLine,
    parentId: add.parentId,
    body: add.body,
  },
  output: resultOf('addComment').shape,
  async run(args, ctx) {
    const { workspace, ...input } = args;
    const ws = await ctx.workspace(workspace);
    const comment = await ctx.satchel.addComment(ws, { ...ctx.call(), ...input });
    return { structured: comment, text: `comment ${comment.id} on ${comment.path}` };
  },
});

const resolveComment = defineTool({
  name: 'resolve_comment',
  title: 'Resolve comment',
  description: 'Resolve a thread once addressed.',
  operation: 'resolveComment',
  hints: { destructive: false, idempotent: true },
  input: {
    workspace: WorkspaceArg,
    id: argOf('resolveComment', 'id'),
  },
  output: resultOf('resolveComment').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const thread = await ctx.satchel.resolveComment(ws, args.id, ctx.call());
    return { structured: thread, text: threadText(thread) };
  },
});

export const commentTools: AnyTool[] = [listComments, addComment, resolveComment];
