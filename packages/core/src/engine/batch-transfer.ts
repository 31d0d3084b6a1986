/**
 * Batch transfer (issue 19): a stream of files written in groups, each group one transaction
 * (write-files.ts's `commitFiles`, as `writeFiles`), and a stream of files read. The upload
 * holds a bounded number of files in memory, whatever the length of the stream.
 */
import { isSatchelError, SatchelError } from '@satchel/client/errors.js';
import type { DownloadItem, UploadEntry } from '@satchel/client/operations/satchel.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizeFilePath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type BatchError,
  DownloadFilesSchema,
  type DownloadRequest,
  type FileInfo,
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
import type { BlobRecord, MetadataTx } from '../store/metadata/metadata-store.js';
import { HEADS_PAGE, inlineHeads } from './download-heads.js';
import { contentCollected, ingest, type StoredContent } from './ingest.js';
import { readFile } from './read.js';
import { ReadableContent } from './readable-content.js';
import { commitFiles } from './write-files.js';

/**
 * Files and inline bytes of one group commit (many files per transaction, as `writeFiles`),
 * groups in flight at once, and the bytes they may hold in memory (inline content).
 */
const GROUP_FILES = 256;
const GROUP_BYTES = 8 * 1024 * 1024;
const GROUPS_IN_FLIGHT = 4;
const MAX_IN_FLIGHT_BYTES = 32 * 1024 * 1024;
const SNIFF_BYTES = 8192;

const HashesSchema = z.array(ContentHashSchema).max(HAVE_MAX_HASHES);
const ConditionsSchema = z.object({
  ifMatch: z.number().int().nonnegative().optional(),
  ifNoneMatch: z.literal('*').optional(),
});

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
  for (const hash of new Set(hashes)) if (await readable.holds(hash)) have.push(hash);
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

/** A file of a group waiting for its commit, and where its answer goes. */
interface Member {
  readonly index: number;
  readonly prepared: Prepared;
}

/**
 * Runs the pieces of one upload: checks and stores each file as it arrives, commits them in
 * groups (`commitFiles`: one transaction, one audit entry, one fsync per group; groups in flight
 * share a commit too), and keeps the answers in order. A group with a refused file rolls back
 * and commits again file by file, so each refusal is its own file's answer.
 */
class Upload {
  readonly items: UploadItem[] = [];
  readonly #seen = new Set<string>();
  readonly #inFlight = new Set<Promise<void>>();
  #group: Member[] = [];
  #groupBytes = 0;
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

  /** Stores `entry`'s content and adds it to the open group; a refusal is the entry's answer. */
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
    this.#group.push({ index, prepared });
    this.#groupBytes += prepared.stored.inline?.byteLength ?? 0;
    if (this.#group.length >= GROUP_FILES || this.#groupBytes >= GROUP_BYTES) await this.flush();
  }

  /** Starts the commit of the open group; waits while too many groups or bytes are in flight. */
  async flush(): Promise<void> {
    const group = this.#group;
    const held = this.#groupBytes;
    this.#group = [];
    this.#groupBytes = 0;
    if (group.length > 0) {
      this.#bytes += held;
      const tracked: Promise<void> = this.commitGroup(group).finally(() => {
        this.#inFlight.delete(tracked);
        this.#bytes -= held;
      });
      this.#inFlight.add(tracked);
    }
    while (this.#inFlight.size >= GROUPS_IN_FLIGHT || this.#bytes > MAX_IN_FLIGHT_BYTES) {
      await Promise.race(this.#inFlight);
    }
    if (this.#fault) throw this.#fault.error;
  }

  /** Commits the files received whole and waits for every commit started. */
  async settle(): Promise<void> {
    await this.flush();
    await Promise.all([...this.#inFlight]);
    if (this.#fault) throw this.#fault.error;
  }

  private async commitGroup(group: readonly Member[]): Promise<void> {
    const { ctx, workspace, options } = this;
    let infos: FileInfo[];
    try {
      infos = await ctx.commit(async (tx) => {
        for (const { prepared } of group) await this.stillReadable(prepared, tx);
        return commitFiles(
          tx,
          ctx,
          workspace,
          group.map((member) => member.prepared),
          options,
        );
      });
    } catch (error) {
      if (!isSatchelError(error)) {
        this.#fault ??= { error };
        return;
      }
      if (group.length === 1 && group[0]) return this.answer(group[0], error);
      // One refusal rolled the group back: each file commits on its own and answers for itself.
      await Promise.all(group.map((member) => this.commitOne(member)));
      return;
    }
    for (const [i, member] of group.entries()) {
      const info = infos[i];
      if (info) this.answer(member, info);
    }
  }

  private async commitOne(member: Member): Promise<void> {
    const { ctx, workspace, options } = this;
    try {
      const [info] = await ctx.commit(async (tx) => {
        await this.stillReadable(member.prepared, tx);
        return commitFiles(tx, ctx, workspace, [member.prepared], options);
      });
      if (info) this.answer(member, info);
    } catch (error) {
      if (isSatchelError(error)) this.answer(member, error);
      else this.#fault ??= { error };
    }
  }

  private answer({ index, prepared }: Member, outcome: FileInfo | SatchelError): void {
    this.items[index] =
      outcome instanceof SatchelError
        ? { path: prepared.path, ok: false, error: batchError(outcome) }
        : { path: prepared.path, ok: true, info: outcome, deduplicated: !!prepared.byHash };
  }

  /** Content named by hash: still referenced by a readable workspace, and still stored. */
  private async stillReadable(p: Prepared, tx: MetadataTx): Promise<void> {
    if (p.byHash && !(await this.readable.holds(p.stored.hash, tx))) {
      throw contentCollected(p.stored.hash);
    }
  }

  private async prepare(entry: UploadEntry): Promise<Prepared> {
    const path = normalizeFilePath(entry.path);
    this.checkPath(path);
    if (this.#seen.has(path)) {
      throw new SatchelError('INVALID_INPUT', `${path} appears twice in the batch`, { path });
    }
    this.#seen.add(path);
    const conditions = parseOptions(ConditionsSchema, {
      ifMatch: entry.ifMatch,
      ifNoneMatch: entry.ifNoneMatch,
    });
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
}

/**
 * Writes every entry of `entries` as its own version, many files per transaction (groups of up
 * to 256 files or 8 MiB of inline content; a large file's bytes go to the blob store as they
 * arrive, and its version joins the group): one file's refusal (INVALID_PATH, a path outside the
 * key's prefixes, a failed condition, a lock, content cut short or not matching its hash) is
 * that file's answer, the others go on. An entry is committed only whole: a stream that breaks
 * off leaves the file it was carrying unwritten, and the call rejects once the files received
 * whole are durable. Every answer waits for its file's commit, and they come in the order sent.
 * NOT_FOUND for an unknown workspace.
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
    // Whatever ended the stream, the files received whole are durable before the call ends.
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
  const ws = await requireWorkspace(ctx.store, workspace);
  return (async function* items(): AsyncGenerator<DownloadItem> {
    let heads = new Map<number, DownloadItem>();
    for (const [i, file] of files.entries()) {
      // Small files at the head: a page of them read in one statement (download-heads.ts).
      if (i % HEADS_PAGE === 0) heads = await inlineHeads(ctx, ws, files.slice(i, i + HEADS_PAGE));
      const head = heads.get(i % HEADS_PAGE);
      if (head) {
        yield head;
        continue;
      }
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
