/** SQL for review comments and their threads (portable Kysely; engine/comments.ts decides). */
import type { Kysely, Selectable } from 'kysely';
import type { CommentRecord } from './records.js';
import type { Database } from './tables.js';
import type { CommentsTable } from './tables-people.js';

function toComment(row: Selectable<CommentsTable>): CommentRecord {
  const anchored = row.version !== null && row.start_line !== null && row.end_line !== null;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    threadId: row.thread_id,
    parentId: row.parent_id,
    path: row.path,
    anchor: anchored
      ? {
          version: Number(row.version),
          startLine: Number(row.start_line),
          endLine: Number(row.end_line),
        }
      : null,
    body: row.body,
    author: row.author,
    session: row.session,
    createdAt: Number(row.created_at),
    resolvedAt: row.resolved_at === null ? null : Number(row.resolved_at),
    resolvedBy: row.resolved_by,
  };
}

/** Which threads a listing wants: of one path or all, open, resolved or both. */
export interface ThreadFilter {
  readonly path: string | null;
  readonly status: 'open' | 'resolved' | 'all';
}

/** Comments (`store.comments`, `tx.comments`). */
export class CommentQueries {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(comment: CommentRecord): Promise<void> {
    await this.db
      .insertInto('comments')
      .values({
        id: comment.id,
        workspace_id: comment.workspaceId,
        thread_id: comment.threadId,
        parent_id: comment.parentId,
        path: comment.path,
        version: comment.anchor?.version ?? null,
        start_line: comment.anchor?.startLine ?? null,
        end_line: comment.anchor?.endLine ?? null,
        body: comment.body,
        author: comment.author,
        session: comment.session,
        created_at: comment.createdAt,
        resolved_at: comment.resolvedAt,
        resolved_by: comment.resolvedBy,
      })
      .execute();
  }

  async byId(workspaceId: string, id: string): Promise<CommentRecord | undefined> {
    const row = await this.db
      .selectFrom('comments')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toComment(row);
  }

  /**
   * First comments of threads, newest first (by creation time, then id), after the thread
   * `before` names when given, at most `limit`.
   */
  async threads(
    workspaceId: string,
    filter: ThreadFilter,
    before: { createdAt: number; id: string } | null,
    limit: number,
  ): Promise<CommentRecord[]> {
    let q = this.db
      .selectFrom('comments')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('parent_id', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit);
    if (filter.path !== null) q = q.where('path', '=', filter.path);
    if (filter.status === 'open') q = q.where('resolved_at', 'is', null);
    if (filter.status === 'resolved') q = q.where('resolved_at', 'is not', null);
    if (before !== null) {
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '<', before.createdAt),
          eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
        ]),
      );
    }
    return (await q.execute()).map(toComment);
  }

  /** The replies of threads, oldest first within each, at most `perThread` of each. */
  async replies(threadIds: readonly string[], perThread: number): Promise<CommentRecord[]> {
    if (threadIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('comments')
      .selectAll()
      .where('thread_id', 'in', threadIds)
      .where('parent_id', 'is not', null)
      .orderBy('thread_id')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const kept = new Map<string, number>();
    const out: CommentRecord[] = [];
    for (const row of rows) {
      const n = kept.get(row.thread_id) ?? 0;
      if (n >= perThread) continue;
      kept.set(row.thread_id, n + 1);
      out.push(toComment(row));
    }
    return out;
  }

  /** How many replies each thread has. */
  async replyCounts(threadIds: readonly string[]): Promise<Map<string, number>> {
    if (threadIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('comments')
      .select((eb) => ['thread_id', eb.fn.countAll<number>().as('n')])
      .where('thread_id', 'in', threadIds)
      .where('parent_id', 'is not', null)
      .groupBy('thread_id')
      .execute();
    return new Map(rows.map((r) => [r.thread_id, Number(r.n)]));
  }

  /**
   * Marks a thread resolved (by `who`, at `at`) or open again (`at` null). Returns whether
   * its state changed: resolving a resolved thread changes nothing.
   */
  async setResolved(
    workspaceId: string,
    threadId: string,
    at: number | null,
    who: string | null,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('comments')
      .set({ resolved_at: at, resolved_by: who })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', threadId)
      .where('resolved_at', at === null ? 'is not' : 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
