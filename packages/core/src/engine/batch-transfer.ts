/**
 * Batch transfer (issue 19): a stream of files written each in its own transaction — the group
 * committer folds the transactions in flight into one fsync — and a stream of files read. The
 * upload holds a bounded number of files in memory, whatever the length of the stream.
 */
import { isSatchelError, SatchelError } from '@satchel/client/errors.js';
import type { DownloadItem, UploadEntry } from '@satchel/client/operations/satchel.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizeFilePath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type BatchError,
  DownloadFilesSchema,
  type DownloadRequest,
  HAVE_MAX_HASHES,
  type HaveContent,
  type UploadItem,
  type UploadOptions,
  UploadOptionsSchema,
  type UploadResult,
} from '@satchel/client/schemas/index.js';
import { ContentHashSchema } from '@satchel/client/schemas/sync.js';
import { z } from 'zod';
import { authorizeRole, roleWithin } from '../auth/authorize.js';
import { blobBytes } from '../kernel/content.js';
import { type EngineContext, requireWorkspace, workspaceNotFound } from '../kernel/context.js';
import type { BlobRecord } from '../store/metadata/metadata-store.js';
import { contentCollected, ingest, type StoredContent } from './ingest.js';
import { readFile } from './read.js';
import { ReadableContent } from './readable-content.js';
import { commitContent } from './write.js';

/** Commits in flight at once, and the bytes they may hold in memory (inline content). */
const MAX_IN_FLIGHT = 512;
const MAX_IN_FLIGHT_BYTES = 32 * 1024 * 1024;
const SNIFF_BYTES = 8192;

const HashesSchema = z.array(ContentHashSchema).max(HAVE_MAX_HASHES);

/**
 * Of `hashes`, those whose content a workspace the caller may read holds (any version, history
 * included): upload those by hash. Content of workspaces the caller cannot read is never
 * reported. INVALID_INPUT for a malformed hash or more than 1000 of them.
 */
export async function haveContent(
  ctx: EngineContext,
  workspace: string,
  rawHashes: readonly string[],
): Promise<HaveContent> {
  validateWorkspaceName(workspace);
  const hashes = parseOptions(HashesSchema, rawHashes);
  const readable = new ReadableContent(ctx, await requireWorkspace(ctx.store, workspace));
  const have: string[] = [];
  for (const hash of new Set(hashes)) if (await readable.find(hash)) have.push(hash);
  return { have };
}

function batchError(error: SatchelError): BatchError {
  return { code: error.code, message: error.message, data: { ...error.data } };
}

function sizeMismatch(path: string, expected: number, actual: number): SatchelError {
  return new SatchelError(
    'INVALID_INPUT',
    `${path}: ${actual} bytes arrived, ${expected} announced; nothing was written`,
    { path, reason: 'size_mismatch', expected, actual },
  );
}

/** What one entry becomes before its commit: content stored (or found), and its conditions. */
interface Prepared {
  readonly path: string;
  readonly stored: StoredContent;
  readonly byHash: BlobRecord | null;
  readonly ifMatch?: number | undefined;
  readonly ifNoneMatch?: '*' | undefined;
}

/** Runs the pieces of one upload: checks, stores, commits, and keeps the answers in order. */
class Upload {
  readonly items: UploadItem[] = [];
  readonly #seen = new Set<string>();
  readonly #inFlight = new Set<Promise<void>>();
  #bytes = 0;
  /** A commit that failed for a reason other than a refusal (the database went away). */
  #fault: { error: unknown } | null = null;

  constructor(
    private readonly ctx: EngineContext,
    private readonly workspace: string,
    private readonly checkPath: (path: string) => void,
    private readonly readable: ReadableContent,
    private readonly options: UploadOptions,
  ) {}

  /** Stores `entry`'s content and starts its commit; a refusal is the entry's answer. */
  async add(entry: UploadEntry): Promise<void> {
    const index = this.items.length;
    const raw = typeof entry?.path === 'string' ? entry.path : String(entry?.path);
    this.items.push({
      path: raw,
      ok: false,
      error: { code: 'UNAVAILABLE', message: 'not committed' },
    });
    let prepared: Prepared;
    try {
      prepared = await this.prepare(entry);
    } catch (error) {
      if (!isSatchelError(error)) throw error;
      this.items[index] = { path: raw, ok: false, error: batchError(error) };
      return;
    }
    const held = prepared.stored.inline?.byteLength ?? 0;
    this.#bytes += held;
    const done = this.commit(prepared).then(
      (info) => {
        this.items[index] = {
          path: prepared.path,
          ok: true,
          info,
          deduplicated: !!prepared.byHash,
        };
      },
      (error: unknown) => {
        if (isSatchelError(error)) {
          this.items[index] = { path: prepared.path, ok: false, error: batchError(error) };
        } else this.#fault ??= { error };
      },
    );
    const tracked = done.finally(() => {
      this.#inFlight.delete(tracked);
      this.#bytes -= held;
    });
    this.#inFlight.add(tracked);
    while (this.#inFlight.size >= MAX_IN_FLIGHT || this.#bytes > MAX_IN_FLIGHT_BYTES) {
      await Promise.race(this.#inFlight);
    }
    if (this.#fault) throw this.#fault.error;
  }

  /** Waits for every commit started; rejects with a fault that is not a refusal. */
  async settle(): Promise<void> {
    await Promise.all([...this.#inFlight]);
    if (this.#fault) throw this.#fault.error;
  }

  private async prepare(entry: UploadEntry): Promise<Prepared> {
    const path = normalizeFilePath(entry.path);
    this.checkPath(path);
    if (this.#seen.has(path)) {
      throw new SatchelError('INVALID_INPUT', `${path} appears twice in the batch`, { path });
    }
    this.#seen.add(path);
    const conditions = parseOptions(
      z.object({
        ifMatch: z.number().int().nonnegative().optional(),
        ifNoneMatch: z.literal('*').optional(),
      }),
      { ifMatch: entry.ifMatch, ifNoneMatch: entry.ifNoneMatch },
    );
    const hash = entry.hash === undefined ? undefined : parseOptions(ContentHashSchema, entry.hash);
    if (entry.content === undefined) {
      if (hash === undefined) {
        throw new SatchelError('INVALID_INPUT', `${path}: give its content or its hash`, { path });
      }
      const blob = await this.readable.find(hash);
      if (!blob) {
        throw new SatchelError('NOT_FOUND', `no workspace you may read holds content ${hash}`, {
          path,
          hash,
          reason: 'content_unknown',
        });
      }
      const head: Uint8Array[] = [];
      for await (const piece of blobBytes(this.ctx, blob, 0, Math.min(blob.size, SNIFF_BYTES)))
        head.push(piece);
      const stored = { hash, size: blob.size, inline: null, ref: null, head: Buffer.concat(head) };
      return { path, stored, byHash: blob, ...conditions };
    }
    const stored = await ingest(entry.content, this.ctx.limits, this.ctx.blobs);
    if (entry.size !== undefined && stored.size !== entry.size) {
      throw sizeMismatch(path, entry.size, stored.size);
    }
    if (hash !== undefined && stored.hash !== hash) {
      throw new SatchelError(
        'INVALID_INPUT',
        `${path}: the content arrived with hash ${stored.hash}, not the ${hash} announced; nothing was written`,
        { path, reason: 'hash_mismatch', expected: hash, actual: stored.hash },
      );
    }
    return { path, stored, byHash: null, ...conditions };
  }

  private commit(p: Prepared) {
    const { ctx, workspace, options } = this;
    return ctx.commit(async (tx) => {
      // Content named by hash: still referenced by a readable workspace, and still stored.
      if (p.byHash && !(await this.readable.find(p.stored.hash, tx))) {
        throw contentCollected(p.stored.hash);
      }
      return commitContent(tx, ctx, workspace, p.path, p.stored, 'write', {
        ...options,
        ifMatch: p.ifMatch,
        ifNoneMatch: p.ifNoneMatch,
      });
    });
  }
}

/**
 * Writes every entry of `entries` as its own version, in its own transaction (the group
 * committer shares one fsync among those in flight): one file's refusal (INVALID_PATH, a path
 * outside the key's prefixes, a failed condition, a lock, content cut short or not matching its
 * hash) is that file's answer, the others go on. An entry is committed only whole: a stream that
 * breaks off leaves the file it was carrying unwritten, and the call rejects once the commits
 * already started are durable. Answers come in the order sent. NOT_FOUND for an unknown workspace.
 */
export async function uploadFiles(
  ctx: EngineContext,
  workspace: string,
  entries: AsyncIterable<UploadEntry>,
  rawOptions?: UploadOptions,
): Promise<UploadResult> {
  validateWorkspaceName(workspace);
  const options = parseOptions(UploadOptionsSchema, rawOptions);
  if (entries === null || typeof entries !== 'object' || !(Symbol.asyncIterator in entries)) {
    throw new SatchelError('INVALID_INPUT', 'entries must be an async iterable of files', {
      field: 'entries',
    });
  }
  const found = await ctx.store.findWorkspaceWithRole(workspace, ctx.actor.principalId);
  if (!found) throw workspaceNotFound(workspace);
  const role = roleWithin(ctx.actor, found.workspace, found.role);
  const checkPath = (path: string) => {
    authorizeRole(ctx.actor, 'file.write', found.workspace, role, [path]);
  };
  const readable = new ReadableContent(ctx, found.workspace);
  const upload = new Upload(ctx, workspace, checkPath, readable, options);
  try {
    for await (const entry of entries) await upload.add(entry);
  } catch (error) {
    // Whatever ended the stream, the commits already started are durable before the call ends.
    await upload.settle().catch(() => undefined);
    throw error;
  }
  await upload.settle();
  return { items: upload.items };
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/**
 * The files `files` names (each the head, or the version given), streamed one after the other
 * in the order asked: each item's body must be read before the next item is asked for. A file
 * that cannot be read (NOT_FOUND, a directory, a deletion) is an item with its error.
 * INVALID_INPUT for a malformed list (1 to 1000 files); NOT_FOUND for an unknown workspace.
 */
export async function downloadFiles(
  ctx: EngineContext,
  workspace: string,
  rawFiles: readonly DownloadRequest[],
): Promise<AsyncIterable<DownloadItem>> {
  validateWorkspaceName(workspace);
  const files = parseOptions(DownloadFilesSchema, rawFiles);
  await requireWorkspace(ctx.store, workspace);
  return (async function* items(): AsyncGenerator<DownloadItem> {
    for (const file of files) {
      let item: DownloadItem;
      try {
        const read = await readFile(ctx, workspace, file.path, { version: file.version });
        item = {
          path: read.info.path,
          info: read.info,
          body: read.bytes === undefined ? read.body : once(read.bytes),
        };
      } catch (error) {
        if (!isSatchelError(error) || error.code === 'UNAVAILABLE') throw error;
        item = { path: file.path, error: batchError(error) };
      }
      yield item;
    }
  })();
}
