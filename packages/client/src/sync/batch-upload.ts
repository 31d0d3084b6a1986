/**
 * Uploads of a plan in batches (issue 19): many files per request (`uploadFiles`), content the
 * server already has (in a workspace the caller may read) named by hash instead of sent.
 *
 * Small files are read whole, a window of them at a time ahead of the one sent, so the tree's
 * reads overlap the server's commits. A file the scan left unhashed (new to both sides, scan.ts)
 * is hashed as its window is read, and the window's new hashes are offered to the server before
 * any of its files is sent: each file is read once, and content the server has is still never
 * sent again.
 */
import { eachLimit } from '../each-limit.js';
import { SatchelError } from '../errors.js';
import type { UploadEntry } from '../operations/satchel.js';
import { isMissingRoute } from '../remote/batch-calls.js';
import { HAVE_MAX_HASHES } from '../schemas/index.js';
import { resumed } from '../transfer/batch-tar.js';
import {
  type BatchHost,
  canBatch,
  chunks,
  session,
  type Upload,
  withoutBatch,
} from './batch-apply.js';
import { hashed } from './plan.js';
import { DEFERRED_MAX, withHash } from './scan.js';

/** Files per upload request, and requests in flight. */
const UPLOAD_FILES = 2000;
const UPLOAD_REQUESTS = 2;
/** "What do you have" requests (of up to HAVE_MAX_HASHES hashes) in flight. */
const NEGOTIATE_REQUESTS = 4;
/** Files up to this size are read whole (every file a scan may leave unhashed is). */
const READ_WHOLE_MAX = DEFERRED_MAX;
/** A window: the small files read, hashed and offered ahead of the ones being sent. */
const WINDOW_FILES = 256;
const WINDOW_BYTES = 8 * 1024 * 1024;

/** Asks which of `hashes` the server has where the caller may read it; adds them to `known`. */
async function negotiate(
  host: BatchHost,
  hashes: Iterable<string>,
  known: Set<string>,
): Promise<void> {
  const ask = [...new Set(hashes)].filter((hash) => !known.has(hash));
  const pages: string[][] = [];
  for (let i = 0; i < ask.length; i += HAVE_MAX_HASHES) {
    pages.push(ask.slice(i, i + HAVE_MAX_HASHES));
  }
  await eachLimit(pages, NEGOTIATE_REQUESTS, async (page) => {
    const answer = await host.ctx.satchel.haveContent(host.ctx.workspace, page, session(host.ctx));
    for (const hash of answer.have) known.add(hash);
  });
}

/** A retry of the next pass: the file changed, raced a writer, or its content went away. */
function retryable(code: string, reason: unknown): boolean {
  if (code === 'PRECONDITION_FAILED' || code === 'LOCKED' || code === 'UNAVAILABLE') return true;
  if (code === 'INVALID_INPUT') return reason === 'size_mismatch' || reason === 'hash_mismatch';
  return code === 'NOT_FOUND' && reason === 'content_unknown';
}

/**
 * A file of an upload opened ahead of its turn: the action (its file hashed), the entry to
 * send, or why it is left out.
 */
type Opened =
  | { readonly action: Upload; readonly entry: UploadEntry; readonly close?: () => unknown }
  | { readonly action: Upload; readonly error: unknown };

async function readAll(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  for await (const piece of source) pieces.push(piece);
  return pieces.length === 1 && pieces[0] ? pieces[0] : Buffer.concat(pieces);
}

function conditions(action: Upload): { ifNoneMatch: '*' } | { ifMatch: number } {
  return action.ifMatch === null ? { ifNoneMatch: '*' } : { ifMatch: action.ifMatch };
}

/** The entry naming `action`'s content by hash: the server has it. */
function byHash(action: Upload, hash: string): UploadEntry {
  return { path: action.path, hash, ...conditions(action) };
}

/**
 * The entry of `action`: by hash when the server has its content, else its bytes — read whole
 * (and hashed, if the scan left it unhashed) for a small file, streamed for a larger one, which
 * the scan always hashed. Opened before the entry is sent: a file that cannot be read is left
 * out, not sent.
 */
async function open(host: BatchHost, action: Upload, known: ReadonlySet<string>): Promise<Opened> {
  const { local } = action;
  if (local.hash !== null && known.has(local.hash)) {
    return { action, entry: byHash(action, local.hash) };
  }
  try {
    if (local.size <= READ_WHOLE_MAX) {
      const content = await readAll(host.ctx.tree.read(local.name));
      const file = local.hash === null ? withHash(local, content) : hashed(local);
      const entry = { path: action.path, hash: file.hash, size: local.size, ...conditions(action) };
      return { action: { ...action, local: file }, entry: { ...entry, content } };
    }
    const iterator = host.ctx.tree.read(local.name)[Symbol.asyncIterator]();
    const content = resumed(iterator, await iterator.next());
    const entry = { path: action.path, size: local.size, content, ...conditions(action) };
    return {
      action,
      entry: local.hash === null ? entry : { ...entry, hash: local.hash },
      close: () => iterator.return?.(),
    };
  } catch (error) {
    return { action, error };
  }
}

/** A window of `chunk`: its files opened, and where the next window starts. */
interface Window {
  readonly opened: Opened[];
  readonly end: number;
}

/**
 * Opens the window of `chunk` at `start`: small files up to WINDOW_FILES or WINDOW_BYTES, or one
 * larger file alone. Then offers the hashes its reads found (of files the scan left unhashed) to
 * the server, and names by hash the content it has.
 */
async function openWindow(
  host: BatchHost,
  chunk: readonly Upload[],
  start: number,
  known: Set<string>,
): Promise<Window> {
  const opened: Opened[] = [];
  let end = start;
  let bytes = 0;
  while (end < chunk.length && opened.length < WINDOW_FILES && bytes < WINDOW_BYTES) {
    const action = chunk[end] as Upload;
    if (action.local.size > READ_WHOLE_MAX && opened.length > 0) break;
    opened.push(await open(host, action, known));
    end++;
    bytes += action.local.size;
    if (action.local.size > READ_WHOLE_MAX) break;
  }
  // The hashes of the files the scan left unhashed, read whole just now.
  const found = opened.flatMap((item, i) =>
    chunk[start + i]?.local.hash === null && 'entry' in item && item.action.local.hash !== null
      ? [item.action.local.hash]
      : [],
  );
  await negotiate(host, found, known);
  return {
    end,
    opened: opened.map((item) => {
      const hash = item.action.local.hash;
      if (!('entry' in item) || hash === null || !known.has(hash) || !item.entry.content) {
        return item;
      }
      return { action: item.action, entry: byHash(item.action, hash) };
    }),
  };
}

async function uploadChunk(host: BatchHost, chunk: readonly Upload[], known: Set<string>) {
  const { ctx, result } = host;
  const sent: Upload[] = [];
  /** The entries in the order of `chunk`, the next window opened while one is sent. */
  async function* entries(): AsyncGenerator<UploadEntry> {
    let ahead: Promise<Window> | null = openWindow(host, chunk, 0, known);
    let current: Opened[] = [];
    try {
      while (ahead) {
        const window: Window = await ahead;
        ahead = window.end < chunk.length ? openWindow(host, chunk, window.end, known) : null;
        ahead?.catch(() => undefined);
        current = window.opened;
        for (let item = current.shift(); item; item = current.shift()) {
          if ('error' in item) {
            host.tick(1);
            if (!host.unreadable(item.action, item.error)) result.retry++;
            continue;
          }
          sent.push(item.action);
          yield item.entry;
        }
      }
    } finally {
      // The upload ended early (the server went away): close the files opened ahead.
      const close = (items: readonly Opened[]) => {
        for (const item of items) if ('close' in item) void item.close?.();
      };
      close(current);
      void ahead?.then(
        (window) => close(window.opened),
        () => undefined,
      );
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
 * when the server has no batch routes). The hashes the scan found are offered first, all at
 * once; those of files it left unhashed, window by window (`openWindow`).
 */
export async function uploadInBatches(
  host: BatchHost,
  uploads: readonly Upload[],
): Promise<readonly Upload[]> {
  const { satchel, remoteHashes } = host.ctx;
  if (uploads.length === 0 || !canBatch(satchel)) return uploads;
  const known = new Set(remoteHashes);
  const toSend = (u: Upload) =>
    u.local.hash !== null && known.has(u.local.hash) ? 0 : u.local.size;
  try {
    const hashes = uploads.flatMap((u) => (u.local.hash === null ? [] : [u.local.hash]));
    await negotiate(host, hashes, known);
    await eachLimit(chunks(uploads, UPLOAD_FILES, toSend), UPLOAD_REQUESTS, (chunk) =>
      uploadChunk(host, chunk, known),
    );
  } catch (error) {
    // The first batch call found no route (a server without them; with only unhashed files,
    // that is a window's question or the upload itself): nothing went up in batches.
    if (!isMissingRoute(error)) throw error;
    withoutBatch.add(satchel);
    return uploads;
  }
  return [];
}
