/**
 * Comment threads as callers see them: each thread's anchor recomputed against the file's head
 * (comment-anchors.ts), its excerpt, its replies. One listing reads each distinct content once.
 * Redacted content stays unreadable here too: an anchor on a redacted version has no excerpt
 * and is outdated; a redacted head makes every anchor on the file outdated.
 */
import type { Comment, CommentThread, LineRange } from '@satchel/client/schemas/index.js';
import { isBinary, readWhole } from '../kernel/content.js';
import type { EngineContext } from '../kernel/context.js';
import { isRedacted } from '../kernel/context.js';
import { iso } from '../kernel/records.js';
import type { CommentRecord, WorkspaceRecord } from '../store/metadata/metadata-store.js';
import { excerptOf, linesOf, relocate } from './comment-anchors.js';
import { resolveVersion } from './history.js';

/** Replies a thread carries; `replyCount` says how many there are. */
export const REPLIES_PER_THREAD = 100;

export function commentOut(row: CommentRecord): Comment {
  return {
    id: row.id,
    threadId: row.threadId,
    parentId: row.parentId,
    path: row.path,
    body: row.body,
    author: row.author,
    session: row.session,
    createdAt: iso(row.createdAt),
  };
}

/**
 * The lines of content `hash` (null: redacted, binary, too large or gone), each hash read
 * once per listing.
 */
class LineCache {
  readonly #lines = new Map<string, Promise<string[] | null>>();

  constructor(private readonly ctx: EngineContext) {}

  get(hash: string | null): Promise<string[] | null> {
    if (hash === null) return Promise.resolve(null);
    let lines = this.#lines.get(hash);
    if (!lines) {
      lines = readWhole(this.ctx, this.ctx.store, hash, this.ctx.limits.maxTextBytes, 'comments')
        .then((bytes) => (isBinary(bytes) ? null : linesOf(bytes.toString('utf8'))))
        .catch(() => null);
      this.#lines.set(hash, lines);
    }
    return lines;
  }
}

interface Placed {
  readonly current: LineRange | null;
  readonly excerpt: string | null;
}

/** Where a thread's anchor is in the head of its file, and the anchored lines' excerpt. */
async function place(
  ctx: EngineContext,
  ws: WorkspaceRecord,
  root: CommentRecord,
  cache: LineCache,
): Promise<Placed> {
  const anchor = root.anchor;
  if (anchor === null) return { current: null, excerpt: null };
  const original = await resolveVersion(ctx.store, ws.id, root.path, anchor.version);
  const usable = original && !original.deleted && !isRedacted(original) ? original.hash : null;
  const before = await cache.get(usable);
  const excerpt = before === null ? null : excerptOf(before, anchor.startLine, anchor.endLine);
  const head = await ctx.store.getEntry(ws.id, root.path);
  if (head?.type !== 'file' || isRedacted(head) || before === null) {
    return { current: null, excerpt };
  }
  if (head.hash === usable) {
    return { current: { ...anchor, version: head.seq }, excerpt };
  }
  const after = await cache.get(head.hash);
  const moved = after === null ? null : relocate(before, after, anchor.startLine, anchor.endLine);
  return { current: moved === null ? null : { version: head.seq, ...moved }, excerpt };
}

/** The threads of `roots` (first comments), in their order, with their replies. */
export async function threadsOut(
  ctx: EngineContext,
  ws: WorkspaceRecord,
  roots: readonly CommentRecord[],
): Promise<CommentThread[]> {
  const ids = roots.map((r) => r.id);
  const [replies, counts] = await Promise.all([
    ctx.store.comments.replies(ids, REPLIES_PER_THREAD),
    ctx.store.comments.replyCounts(ids),
  ]);
  const byThread = new Map<string, Comment[]>();
  for (const reply of replies) {
    const list = byThread.get(reply.threadId) ?? [];
    list.push(commentOut(reply));
    byThread.set(reply.threadId, list);
  }
  const cache = new LineCache(ctx);
  const out: CommentThread[] = [];
  for (const root of roots) {
    const { current, excerpt } = await place(ctx, ws, root, cache);
    const anchor = root.anchor ?? { version: 0, startLine: 0, endLine: 0 };
    out.push({
      ...commentOut(root),
      anchor,
      current,
      outdated: current === null,
      excerpt,
      resolved: root.resolvedAt !== null,
      resolvedBy: root.resolvedBy,
      resolvedAt: root.resolvedAt === null ? null : iso(root.resolvedAt),
      replies: byThread.get(root.id) ?? [],
      replyCount: counts.get(root.id) ?? 0,
    });
  }
  return out;
}
