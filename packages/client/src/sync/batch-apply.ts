/**
 * Uploads and downloads of a plan in batches (issue 19): content the server already has (in a
 * workspace the caller may read) is named by hash, the rest travels many files per request
 * (`uploadFiles`), and downloads come many per request (`downloadFiles`) and are written to the
 * tree in flushed groups. A server without these routes gets the calls it has (one by one).
 */
import { eachLimit } from '../each-limit.js';
import { isSatchelError, SatchelError } from '../errors.js';
import type { Satchel, UploadEntry } from '../operations/satchel.js';
import { isMissingRoute } from '../remote/batch-calls.js';
import { HAVE_MAX_HASHES } from '../schemas/index.js';
import type { ApplyContext, ApplyResult } from './apply-context.js';
import type { LocalFile, RemoteFile, SyncAction } from './plan.js';
import type { FileState } from './state.js';
import { SymlinkInPathError, type TreeWriteGroup, type WrittenFile } from './tree.js';

export type Upload = Extract<SyncAction, { kind: 'upload' }>;
export type Download = Extract<SyncAction, { kind: 'download' }>;

/** Files and bytes of content per upload request, requests in flight. */
const UPLOAD_FILES = 2000;
const UPLOAD_BYTES = 64 * 1024 * 1024;
const UPLOAD_REQUESTS = 2;
/** "What do you have" requests (of up to HAVE_MAX_HASHES hashes) in flight. */
const NEGOTIATE_REQUESTS = 4;
/** Files up to this size are read whole, up to READ_AHEAD of them ahead of the one sent. */
const READ_WHOLE_MAX = 256 * 1024;
const READ_AHEAD = 16;
/** Files per download request, and per flushed group of the tree. */
const DOWNLOAD_FILES = 1000;
/** Files checked unchanged at once before their download. */
const CHECKS_IN_FLIGHT = 16;
const GROUP_FILES = 512;
const GROUP_BYTES = 32 * 1024 * 1024;

/** What the batches need from the Applier that runs them. */
export interface BatchHost {
  readonly ctx: ApplyContext;
  readonly result: ApplyResult;
  tick(count: number): void;
  refused(path: string, error: SymlinkInPathError): void;
  typeMismatch(path: string): void;
  /** The state after an upload of `local` answered with `info`. */
  uploaded(info: { seq: number; size: number; hash: string | null }, local: LocalFile): FileState;
  /** The state of `remote` as written into the tree. */
  downloaded(remote: RemoteFile, at: WrittenFile): FileState;
  unchanged(name: string, expect: LocalFile | null): Promise<boolean>;
}

/** Servers found without the batch routes, asked one file at a time from then on. */
const withoutBatch = new WeakSet<Satchel>();

export function canBatch(satchel: Satchel): boolean {
  return !withoutBatch.has(satchel);
}

function chunks<T>(items: readonly T[], files: number, bytes: (item: T) => number): T[][] {
  const out: T[][] = [];
  let chunk: T[] = [];
  let size = 0;
  for (const item of items) {
    if (chunk.length >= files || (chunk.length > 0 && size + bytes(item) > UPLOAD_BYTES)) {
      out.push(chunk);
      chunk = [];
      size = 0;
    }
    chunk.push(item);
    size += bytes(item);
  }
  if (chunk.length > 0) out.push(chunk);
  return out;
}

function session(ctx: ApplyContext): { session?: string } {
  return ctx.session === undefined ? {} : { session: ctx.session };
}

/** Hashes of `uploads` whose content the server has where the caller may read it. */
async function negotiate(host: BatchHost, uploads: readonly Upload[]): Promise<Set<string>> {
  const { satchel, workspace, remoteHashes } = host.ctx;
  const known = new Set<string>();
  const ask = [...new Set(uploads.map((u) => u.local.hash))].filter((h) => !remoteHashes.has(h));
  const pages: string[][] = [];
  for (let i = 0; i < ask.length; i += HAVE_MAX_HASHES)
    pages.push(ask.slice(i, i + HAVE_MAX_HASHES));
  await eachLimit(pages, NEGOTIATE_REQUESTS, async (page) => {
    const answer = await satchel.haveContent(workspace, page, session(host.ctx));
    for (const hash of answer.have) known.add(hash);
  });
  for (const hash of remoteHashes) known.add(hash);
  return known;
}

/** A retry of the next pass: the file changed, raced a writer, or its content went away. */
function retryable(code: string, reason: unknown): boolean {
  if (code === 'PRECONDITION_FAILED' || code === 'LOCKED' || code === 'UNAVAILABLE') return true;
  if (code === 'INVALID_INPUT') return reason === 'size_mismatch' || reason === 'hash_mismatch';
  return code === 'NOT_FOUND' && reason === 'content_unknown';
}

/** A file of an upload opened ahead of its turn: its entry, or why it is left out. */
type Opened =
  | { readonly action: Upload; readonly entry: UploadEntry; readonly close?: () => unknown }
  | { readonly action: Upload; readonly error: unknown };

async function readAll(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  for await (const piece of source) pieces.push(piece);
  return pieces.length === 1 && pieces[0] ? pieces[0] : Buffer.concat(pieces);
}

/**
 * The entry of `action`: by hash when the server has its content, else its bytes — read whole
 * for a small file, streamed for a larger one. Opened before the entry is sent: a file that
 * cannot be read is left out, not sent.
 */
async function open(host: BatchHost, action: Upload, known: ReadonlySet<string>): Promise<Opened> {
  const { local } = action;
  const conditions =
    action.ifMatch === null ? { ifNoneMatch: '*' as const } : { ifMatch: action.ifMatch };
  if (known.has(local.hash))
    return { action, entry: { path: action.path, hash: local.hash, ...conditions } };
  const entry = { path: action.path, hash: local.hash, size: local.size, ...conditions };
  try {
    if (local.size <= READ_WHOLE_MAX) {
      return {
        action,
        entry: { ...entry, content: await readAll(host.ctx.tree.read(local.name)) },
      };
    }
    const iterator = host.ctx.tree.read(local.name)[Symbol.asyncIterator]();
    const first = await iterator.next();
    async function* content(): AsyncGenerator<Uint8Array> {
      if (first.done) return;
      yield first.value;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    }
    return { action, entry: { ...entry, content: content() }, close: () => iterator.return?.() };
  } catch (error) {
    return { action, error };
  }
}

async function uploadChunk(host: BatchHost, chunk: readonly Upload[], known: ReadonlySet<string>) {
  const { ctx, result } = host;
  const sent: Upload[] = [];
  /**
   * The entries in the order of `chunk`. Small files are read READ_AHEAD ahead of the one sent,
   * so the tree's reads overlap the server's commits; a large file is opened at its turn.
   */
  async function* entries(): AsyncGenerator<UploadEntry> {
    const ahead: Promise<Opened>[] = [];
    let next = 0;
    const fill = () => {
      while (ahead.length < READ_AHEAD && next < chunk.length) {
        const action = chunk[next];
        if (!action || (action.local.size > READ_WHOLE_MAX && ahead.length > 0)) return;
        next++;
        ahead.push(open(host, action, known));
      }
    };
    fill();
    try {
      for (let opened = ahead.shift(); opened; opened = ahead.shift()) {
        const item = await opened;
        fill();
        if ('error' in item) {
          host.tick(1);
          if (item.error instanceof SymlinkInPathError) host.refused(item.action.path, item.error);
          else result.retry++;
          continue;
        }
        sent.push(item.action);
        yield item.entry;
        fill();
      }
    } finally {
      // The upload ended early (the server went away): close the files opened ahead.
      for (const opened of ahead.splice(0)) {
        void opened.then((item) => ('close' in item ? item.close?.() : undefined));
      }
    }
  }
  const answer = await ctx.satchel.uploadFiles(ctx.workspace, entries(), session(ctx));
  for (const [i, item] of answer.items.entries()) {
    const action = sent[i];
    if (!action) continue;
    if (item.ok) {
      result.uploaded++;
      if (item.deduplicated) result.deduplicated++;
      else result.bytesUp += item.info.size;
      await ctx.state.set(action.path, host.uploaded(item.info, action.local));
    } else if (item.error.code === 'CONFLICT' && item.error.data?.reason === 'type_mismatch') {
      host.typeMismatch(action.path);
    } else if (retryable(item.error.code, item.error.data?.reason)) {
      result.retry++;
    } else {
      throw new SatchelError(item.error.code, item.error.message, item.error.data ?? {});
    }
  }
  host.tick(sent.length);
}

/**
 * Uploads `uploads` in batches; resolves with those left for the one-by-one path (all of them
 * when the server has no batch routes).
 */
export async function uploadInBatches(
  host: BatchHost,
  uploads: readonly Upload[],
): Promise<readonly Upload[]> {
  const { satchel } = host.ctx;
  if (uploads.length === 0 || !canBatch(satchel)) return uploads;
  let known: Set<string>;
  try {
    known = await negotiate(host, uploads);
  } catch (error) {
    if (!isMissingRoute(error)) throw error;
    withoutBatch.add(satchel);
    return uploads;
  }
  const toSend = (u: Upload) => (known.has(u.local.hash) ? 0 : u.local.size);
  await eachLimit(chunks(uploads, UPLOAD_FILES, toSend), UPLOAD_REQUESTS, (chunk) =>
    uploadChunk(host, chunk, known),
  );
  return [];
}

/** Writes what the group holds and records each file written. */
async function flush(
  host: BatchHost,
  group: TreeWriteGroup,
  waiting: Map<string, Download>,
): Promise<void> {
  if (group.size === 0) return;
  for (const outcome of await group.commit()) {
    const action = waiting.get(outcome.path);
    waiting.delete(outcome.path);
    if (!action) continue;
    if ('written' in outcome) {
      host.result.downloaded++;
      host.result.bytesDown += outcome.written.size;
      await host.ctx.state.set(action.path, host.downloaded(action.remote, outcome.written));
    } else if (outcome.error instanceof SymlinkInPathError) {
      host.refused(action.path, outcome.error);
    } else if (isSatchelError(outcome.error, 'TOO_LARGE')) {
      // The tree cannot hold a file this large (a sandbox's cap): reported, as one by one.
      const detail = outcome.error.message;
      host.result.skipped.push({ path: action.path, reason: 'too_large', detail });
    } else {
      const code = (outcome.error as NodeJS.ErrnoException | null)?.code;
      if (code === 'EISDIR' || code === 'ENOTDIR' || code === 'EEXIST')
        host.typeMismatch(action.path);
      else throw outcome.error;
    }
    host.tick(1);
  }
}

async function downloadChunk(host: BatchHost, chunk: readonly Download[]): Promise<void> {
  const { ctx, result } = host;
  // Checked side by side: on a sandbox each check is a round trip or two to the VM.
  const still: boolean[] = [];
  await eachLimit([...chunk.entries()], CHECKS_IN_FLIGHT, async ([i, action]) => {
    still[i] = await host.unchanged(action.expect?.name ?? action.path.slice(1), action.expect);
  });
  const wanted = chunk.filter((_, i) => still[i]);
  if (wanted.length < chunk.length) {
    result.retry += chunk.length - wanted.length;
    host.tick(chunk.length - wanted.length);
  }
  if (wanted.length === 0) return;
  const items = await ctx.satchel.downloadFiles(
    ctx.workspace,
    wanted.map((d) => ({ path: d.path, version: d.remote.seq })),
    session(ctx),
  );
  let group = ctx.tree.writeGroup?.();
  const waiting = new Map<string, Download>();
  // One full group is flushed (its fsyncs on the thread pool) while the next one is written.
  let flushing: Promise<void> = Promise.resolve();
  let i = 0;
  try {
    for await (const item of items) {
      const action = wanted[i++];
      if (!action) break;
      const name = action.expect?.name ?? action.path.slice(1);
      if ('error' in item) {
        if (item.error.code === 'REDACTED') {
          // An owner removed this content for good: reported, as the one-by-one path does.
          const detail = item.error.message;
          result.skipped.push({ path: action.path, reason: 'redacted', detail });
        } else {
          // The version went away meanwhile (a deleted workspace file): next pass.
          result.retry++;
        }
        host.tick(1);
        continue;
      }
      if (!group) {
        const written = await ctx.tree.write(name, item.body);
        result.downloaded++;
        result.bytesDown += written.size;
        await ctx.state.set(action.path, host.downloaded(action.remote, written));
        host.tick(1);
        continue;
      }
      await group.add(name, item.body);
      waiting.set(name, action);
      if (group.size >= GROUP_FILES || group.bytes >= GROUP_BYTES) {
        await flushing;
        const full = group;
        group = ctx.tree.writeGroup?.();
        flushing = flush(host, full, waiting);
        // Handled here so a failure waits for the next `await flushing` without being reported
        // as unhandled meanwhile.
        flushing.catch(() => undefined);
      }
    }
    await flushing;
    if (group) await flush(host, group, waiting);
  } finally {
    await flushing.catch(() => undefined);
    await group?.discard();
  }
}

/** Downloads `downloads` in batches; resolves with those left for the one-by-one path. */
export async function downloadInBatches(
  host: BatchHost,
  downloads: readonly Download[],
): Promise<readonly Download[]> {
  const { satchel } = host.ctx;
  if (downloads.length === 0 || !canBatch(satchel)) return downloads;
  const [first, ...rest] = chunks(downloads, DOWNLOAD_FILES, () => 0);
  if (!first) return [];
  try {
    await downloadChunk(host, first);
  } catch (error) {
    if (!isMissingRoute(error)) throw error;
    withoutBatch.add(satchel);
    return downloads;
  }
  for (const chunk of rest) await downloadChunk(host, chunk);
  return [];
}
