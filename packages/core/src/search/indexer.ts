/**
 * The search index of every workspace, following its change feed — the durable queue: the
 * index state holds the last seq indexed, and each step re-indexes the current state of the
 * paths the next changes touched (deleted → passages dropped; written, moved, copied, restored →
 * cut again) and advances that cursor in the same transaction. A workspace without state (new,
 * indexing just switched on, `reindex`) is rebuilt from its current files, page by page, with
 * its progress kept in the state too. Steps run in the background after commits and, bounded,
 * before every search, so a search sees the caller's own writes.
 */

import { isSatchelError } from '@satchel/client/errors.js';
import type { SearchStatus } from '@satchel/client/schemas/index.js';
import { blobBytes, isBinary } from '../kernel/content.js';
import { workspaceSettings } from '../kernel/workspace-settings.js';
import type { BlobStore } from '../store/blob-store.js';
import type { GroupCommitter } from '../store/group-commit.js';
import type {
  EntryRecord,
  MetadataStore,
  MetadataTx,
  WorkspaceRecord,
} from '../store/metadata/metadata-store.js';
import type { NewPassage, SearchStateRecord } from '../store/metadata/records.js';
import { chunkText } from './chunk.js';
import { type EmbeddingProvider, vectorBytes } from './embeddings.js';
import type { ChatProvider } from './llm.js';

/** Files larger than this are not indexed (grep still searches them). */
export const MAX_INDEXED_FILE_BYTES = 8 * 1024 * 1024;
/** Changes (versions) read per step of the feed. */
const FEED_PAGE = 500;
/** Files per step of a rebuild. */
const REBUILD_PAGE = 200;
/** Passages per request to the embedding provider. */
const EMBED_BATCH = 32;

export interface SearchIndexOptions {
  readonly store: MetadataStore;
  readonly blobs: BlobStore;
  readonly committer: GroupCommitter;
  readonly embeddings?: EmbeddingProvider | undefined;
  readonly llm?: ChatProvider | undefined;
}

/** How long background indexing waits after a commit, so that a burst shares one step (ms). */
const INDEX_DELAY_MS = 200;
/**
 * After the last bulk upload into a workspace ends, the wait before its held step runs: a sync
 * pushes in several requests, and the next one usually starts within this.
 */
const AFTER_UPLOAD_MS = 500;

/**
 * The engine's search index; one per open engine, shared by all actors.
 *
 * Seam, background search indexing (in-process: a scheduled catch-up per workspace, woken by
 * the ChangeNotifier). Contract a multi-node implementation must keep: the index of a workspace
 * follows its change feed through `search_state.indexed_seq`, advanced in the transaction that
 * writes the passages, so any node may run a step and a crashed step is redone; only one step
 * of a workspace runs at a time (in-process: a per-workspace promise; across nodes: a lease).
 */
export class SearchIndex {
  readonly embeddings: EmbeddingProvider | undefined;
  readonly llm: ChatProvider | undefined;
  readonly #store: MetadataStore;
  readonly #blobs: BlobStore;
  readonly #committer: GroupCommitter;
  /** Per workspace id: the tail of its queue of steps (steps of one workspace never overlap). */
  readonly #tails = new Map<string, Promise<void>>();
  readonly #scheduled = new Set<string>();
  /** Per workspace name: bulk uploads under way, while which background steps wait. */
  readonly #held = new Map<string, number>();
  /** Workspaces whose background step waits for their bulk uploads to end. */
  readonly #deferred = new Set<string>();
  #closed = false;

  constructor(options: SearchIndexOptions) {
    this.#store = options.store;
    this.#blobs = options.blobs;
    this.#committer = options.committer;
    this.embeddings = options.embeddings;
    this.llm = options.llm;
  }

  /**
   * Catches `workspace` up in the background, INDEX_DELAY_MS after the first commit it follows:
   * a burst of commits (a sequential writer's) costs one step, not one each. Searches catch up
   * themselves before answering, so the delay never shows in results.
   */
  schedule(workspace: string, delayMs = INDEX_DELAY_MS): void {
    if (this.#closed || this.#scheduled.has(workspace)) return;
    this.#scheduled.add(workspace);
    const timer = setTimeout(() => {
      this.#scheduled.delete(workspace);
      if (this.#closed) return;
      if (this.#held.has(workspace)) {
        this.#deferred.add(workspace);
        return;
      }
      void this.#store
        .findWorkspace(workspace)
        .then((row) =>
          row
            ? this.catchUp(row, Number.POSITIVE_INFINITY, () => this.#yieldsToUpload(workspace))
            : undefined,
        )
        // A background step that fails is retried by the next commit or search.
        .catch(() => undefined);
    }, delayMs);
    // Never what keeps a process alive: a skipped step is caught up by the next search.
    timer.unref();
  }

  /**
   * Runs `upload` (a bulk upload into `workspace`) with background indexing of the workspace
   * held until it ends, so the indexer does not compete with it file by file: the files it wrote
   * are indexed afterwards, in steps of the feed. Nothing is lost — the index follows the durable
   * change feed, and a search still catches up before it answers.
   */
  async deferring<T>(workspace: string, upload: () => Promise<T>): Promise<T> {
    this.#held.set(workspace, (this.#held.get(workspace) ?? 0) + 1);
    try {
      return await upload();
    } finally {
      const left = (this.#held.get(workspace) ?? 1) - 1;
      if (left > 0) this.#held.set(workspace, left);
      else {
        this.#held.delete(workspace);
        if (this.#deferred.delete(workspace)) this.schedule(workspace, AFTER_UPLOAD_MS);
      }
    }
  }

  /** True when a bulk upload into `workspace` runs: the background step waits for its end. */
  #yieldsToUpload(workspace: string): boolean {
    if (!this.#held.has(workspace)) return false;
    this.#deferred.add(workspace);
    return true;
  }

  /**
   * Brings the index of `ws` up to its head, or as far as it gets before `deadline` (epoch ms);
   * then embeds passages still without vectors, within the same deadline. `yieldNow`, asked
   * before each step, stops it early (a background step giving way to a bulk upload).
   */
  catchUp(ws: WorkspaceRecord, deadline: number, yieldNow?: () => boolean): Promise<void> {
    return this.#serial(ws.id, async () => {
      while (!this.#closed && Date.now() < deadline) {
        if (yieldNow?.()) return;
        const row = await this.#store.findWorkspace(ws.name);
        if (!row || row.id !== ws.id || workspaceSettings(row.settings).indexing === 'off') return;
        if (!(await this.#step(row))) break;
      }
      await this.#embedPending(ws.id, deadline);
    });
  }

  /** Drops the index of `ws` and rebuilds it, for at most `ms`; the rest follows in the background. */
  async reindex(ws: WorkspaceRecord, ms: number): Promise<void> {
    await this.#serial(ws.id, () =>
      this.#committer.run((tx) => tx.search.drop(ws.id), { durable: false }),
    );
    await this.catchUp(ws, Date.now() + ms);
    this.schedule(ws.name);
  }

  /** The seq up to which the index reflects `ws` (cheap: for every search result). */
  async indexedSeq(ws: WorkspaceRecord): Promise<number> {
    const state = await this.#store.search.state(ws.id);
    return state?.indexedSeq ?? 0;
  }

  async status(ws: WorkspaceRecord): Promise<SearchStatus> {
    const enabled = workspaceSettings(ws.settings).indexing === 'on';
    const state = await this.#store.search.state(ws.id);
    const counts = await this.#store.search.countPassages(ws.id);
    const headSeq = ws.seq;
    const indexedSeq = enabled ? (state?.indexedSeq ?? 0) : 0;
    return {
      enabled,
      indexedSeq,
      headSeq,
      lag: enabled ? Math.max(0, headSeq - indexedSeq) : 0,
      rebuilding: enabled && (state === undefined || state.rebuildSeq !== null) && headSeq > 0,
      passages: counts.passages,
      files: counts.files,
      vectors: this.embeddings
        ? {
            model: this.embeddings.model,
            pending: counts.pending,
            error: state?.vectorError ?? null,
          }
        : null,
    };
  }

  /** Stops background work and waits for the step under way. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#tails.values()]);
  }

  #serial(key: string, fn: () => Promise<void>): Promise<void> {
    const run = (this.#tails.get(key) ?? Promise.resolve()).then(fn);
    const tail = run.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return run;
  }

  /**
   * One step: a rebuild page or a page of the feed. False when the index has reached `ws.seq`
   * (the head when the step began).
   */
  async #step(ws: WorkspaceRecord): Promise<boolean> {
    const state = await this.#store.search.state(ws.id);
    if (state === undefined) {
      // No index yet: rebuild from the current files as they are at this head.
      const fresh: SearchStateRecord = {
        workspaceId: ws.id,
        indexedSeq: 0,
        rebuildSeq: ws.seq,
        rebuildAfter: '',
        vectorError: null,
      };
      await this.#commit(undefined, async (tx) => {
        await tx.search.drop(ws.id);
        await tx.search.putState(fresh);
      });
      return true;
    }
    if (state.rebuildSeq !== null) return this.#rebuildPage(ws, state);
    return this.#feedPage(ws, state);
  }

  async #rebuildPage(ws: WorkspaceRecord, state: SearchStateRecord): Promise<boolean> {
    const after = state.rebuildAfter === '' ? null : state.rebuildAfter;
    const entries = await this.#store.listEntries(ws.id, '/', true, after, REBUILD_PAGE);
    const files = entries.filter((e) => e.type === 'file');
    const passages = new Map<string, NewPassage[]>();
    for (const entry of files) passages.set(entry.path, await this.#passagesOf(ws.id, entry));
    const last = entries.at(-1);
    const done = entries.length < REBUILD_PAGE || last === undefined;
    const next: SearchStateRecord = done
      ? { ...state, indexedSeq: Number(state.rebuildSeq), rebuildSeq: null, rebuildAfter: null }
      : { ...state, rebuildAfter: last.path };
    await this.#commit(state, async (tx) => {
      for (const [path, rows] of passages) {
        await tx.search.deletePassagesOf(ws.id, path);
        await tx.search.insertPassages(rows);
      }
      await tx.search.putState(next);
    });
    return true;
  }

  async #feedPage(ws: WorkspaceRecord, state: SearchStateRecord): Promise<boolean> {
    const after = state.indexedSeq;
    const rows = await this.#store.wholeChanges(ws.id, { after, limit: FEED_PAGE });
    if (rows.length === 0) return false;
    const indexedSeq = Number(rows.at(-1)?.seq ?? after);
    const paths = [...new Set(rows.map((r) => r.path))];
    const entries = new Map<string, EntryRecord>();
    for (let i = 0; i < paths.length; i += 200) {
      const found = await this.#store.getEntries(ws.id, paths.slice(i, i + 200));
      for (const [path, entry] of found) entries.set(path, entry);
    }
    const changes = new Map<string, NewPassage[]>();
    for (const path of paths) {
      const entry = entries.get(path);
      if (entry?.type === 'file') {
        // Already indexed at this version (a rebuild got there first): nothing to redo.
        if ((await this.#store.search.indexedSeqOf(ws.id, path)) === entry.seq) continue;
        changes.set(path, await this.#passagesOf(ws.id, entry));
      } else {
        changes.set(path, []);
      }
    }
    await this.#commit(state, async (tx) => {
      for (const [path, passages] of changes) {
        await tx.search.deletePassagesOf(ws.id, path);
        await tx.search.insertPassages(passages);
      }
      await tx.search.putState({ ...state, indexedSeq });
    });
    // Caught up with the head this step started from: commits since then are the next step's,
    // which they schedule themselves (INDEX_DELAY_MS on), so a writer's burst shares a step
    // instead of each write getting its own from a loop that never lets go.
    return indexedSeq < ws.seq;
  }

  /**
   * Commits `op` if the index state is still `expected` (another process may have moved it on:
   * then this step's work is dropped and the next step starts from the new state). Index
   * commits are relaxed: a crash loses at most the last steps, and the cursor with them.
   */
  async #commit(
    expected: SearchStateRecord | undefined,
    op: (tx: MetadataTx) => Promise<void>,
  ): Promise<void> {
    await this.#committer.run(
      async (tx) => {
        const current = expected
          ? await tx.search.state(expected.workspaceId, { lock: true })
          : undefined;
        if (
          expected &&
          (current === undefined ||
            current.indexedSeq !== expected.indexedSeq ||
            current.rebuildSeq !== expected.rebuildSeq ||
            current.rebuildAfter !== expected.rebuildAfter)
        ) {
          return;
        }
        await op(tx);
      },
      { durable: false },
    );
  }

  /** The passages of a file's current version; none for binary, empty or very large files. */
  async #passagesOf(workspaceId: string, entry: EntryRecord): Promise<NewPassage[]> {
    if (entry.hash === null || entry.size === 0) return [];
    if (entry.size > MAX_INDEXED_FILE_BYTES) return [];
    const blob = await this.#store.getBlob(entry.hash);
    if (!blob) return [];
    const pieces: Uint8Array[] = [];
    try {
      for await (const piece of blobBytes({ blobs: this.#blobs }, blob, 0, blob.size)) {
        pieces.push(piece);
      }
    } catch (error) {
      // Damaged content is fsck's to report; the index just leaves the file out.
      if (isSatchelError(error, 'INTEGRITY')) return [];
      throw error;
    }
    const data = Buffer.concat(pieces);
    if (isBinary(data)) return [];
    return chunkText(data.toString('utf8')).map((p) => ({
      workspaceId,
      path: entry.path,
      seq: entry.seq,
      lineStart: p.lineStart,
      lineEnd: p.lineEnd,
      text: p.text,
    }));
  }

  /** Embeds passages without vectors in batches; a failing provider is noted in the state. */
  async #embedPending(workspaceId: string, deadline: number): Promise<void> {
    const provider = this.embeddings;
    if (!provider) return;
    while (!this.#closed && Date.now() < deadline) {
      const pending = await this.#store.search.withoutVector(workspaceId, EMBED_BATCH);
      if (pending.length === 0) return;
      let vectors: Float32Array[];
      try {
        vectors = await provider.embed(pending.map((p) => `${p.path}\n${p.text}`));
        if (vectors.length !== pending.length) {
          throw new Error(`${vectors.length} vectors for ${pending.length} passages`);
        }
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await this.#committer.run((tx) => tx.search.setVectorError(workspaceId, message), {
          durable: false,
        });
        return;
      }
      await this.#committer.run(
        async (tx) => {
          for (const [i, passage] of pending.entries()) {
            const vector = vectors[i];
            if (vector) await tx.search.setVector(passage.id, vectorBytes(vector));
          }
          await tx.search.setVectorError(workspaceId, null);
        },
        { durable: false },
      );
    }
  }
}
