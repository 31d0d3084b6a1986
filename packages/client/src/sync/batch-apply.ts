/**
 * Downloads of a plan in batches (issue 19): many files per request (`downloadFiles`), written to
 * the tree in flushed groups; and what the uploads in batches (batch-upload.ts) share with them.
 * A server without these routes gets the calls it has (one by one).
 */
import { eachLimit } from '../each-limit.js';
import { isSatchelError } from '../errors.js';
import type { DownloadItem, Satchel } from '../operations/satchel.js';
import { isMissingRoute } from '../remote/batch-calls.js';
import type { ApplyContext, ApplyResult } from './apply-context.js';
import { unchangedSince } from './apply-parts.js';
import type { LocalFile, RemoteFile, SyncAction } from './plan.js';
import type { FileState } from './state.js';
import { SymlinkInPathError, type TreeWriteGroup, type WrittenFile } from './tree.js';

export type Upload = Extract<SyncAction, { kind: 'upload' }>;
export type Download = Extract<SyncAction, { kind: 'download' }>;

/** Bytes of content per request: an upload's, and a download's chunk (by files only). */
const REQUEST_BYTES = 64 * 1024 * 1024;
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
  /** Reports a refusal of the tree met reading an upload's file (true), else false. */
  unreadable(upload: Upload, error: unknown): boolean;
  typeMismatch(path: string): void;
  /** The state after an upload of `local` answered with `info`. */
  uploaded(info: { seq: number; size: number; hash: string | null }, local: LocalFile): FileState;
  /** The state of `remote` as written into the tree. */
  downloaded(remote: RemoteFile, at: WrittenFile): FileState;
  unchanged(name: string, expect: LocalFile | null): Promise<boolean>;
}

/** Servers found without the batch routes, asked one file at a time from then on. */
export const withoutBatch = new WeakSet<Satchel>();

export function canBatch(satchel: Satchel): boolean {
  return !withoutBatch.has(satchel);
}

export function chunks<T>(items: readonly T[], files: number, bytes: (item: T) => number): T[][] {
  const out: T[][] = [];
  let chunk: T[] = [];
  let size = 0;
  for (const item of items) {
    if (chunk.length >= files || (chunk.length > 0 && size + bytes(item) > REQUEST_BYTES)) {
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

export function session(ctx: ApplyContext): { session?: string } {
  return ctx.session === undefined ? {} : { session: ctx.session };
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

/** A chunk of downloads checked and asked for: the files still wanted and their stream. */
interface Requested {
  readonly wanted: readonly Download[];
  readonly items: AsyncIterable<DownloadItem> | null;
}

/** Checks that each target of `chunk` is still as scanned, then asks for those that are. */
async function requestChunk(host: BatchHost, chunk: readonly Download[]): Promise<Requested> {
  const { ctx, result } = host;
  const name = (action: Download) => action.expect?.name ?? action.path.slice(1);
  let still: boolean[] = [];
  if (ctx.tree.statAll) {
    const now = await ctx.tree.statAll(chunk.map(name));
    still = chunk.map((action, i) => unchangedSince(now[i] ?? null, action.expect));
  } else {
    // Checked side by side: on a sandbox each check is a round trip or two to the VM.
    await eachLimit([...chunk.entries()], CHECKS_IN_FLIGHT, async ([i, action]) => {
      still[i] = await host.unchanged(name(action), action.expect);
    });
  }
  const wanted = chunk.filter((_, i) => still[i]);
  if (wanted.length < chunk.length) {
    result.retry += chunk.length - wanted.length;
    host.tick(chunk.length - wanted.length);
  }
  if (wanted.length === 0) return { wanted, items: null };
  const items = await ctx.satchel.downloadFiles(
    ctx.workspace,
    wanted.map((d) => ({ path: d.path, version: d.remote.seq })),
    session(ctx),
  );
  return { wanted, items };
}

/** Lets go of a chunk asked for but not written (its stream is closed). */
async function release(requested: Promise<Requested>): Promise<void> {
  const items = await requested.then(
    (r) => r.items,
    () => null,
  );
  await items?.[Symbol.asyncIterator]().return?.();
}

/**
 * The group being flushed (its fsyncs on the thread pool) while the next one is written, across
 * chunks too: a chunk's last group is flushed while the next chunk's files arrive.
 */
class Flushing {
  #current: Promise<void> = Promise.resolve();

  /** Waits for the group being flushed; its failure is thrown. */
  settled(): Promise<void> {
    return this.#current;
  }

  /** Flushes `group` once the group before it is flushed (whose failure is thrown). */
  async next(host: BatchHost, group: TreeWriteGroup, waiting: Map<string, Download>) {
    await this.#current;
    this.#current = flush(host, group, waiting);
    // Handled here so a failure waits for the next `next` or `settled` without being reported
    // as unhandled meanwhile.
    this.#current.catch(() => undefined);
  }
}

/** Writes the files of a chunk as they arrive, in flushed groups, recording each. */
async function writeChunk(
  host: BatchHost,
  { wanted, items }: Requested,
  flushing: Flushing,
): Promise<void> {
  const { ctx, result } = host;
  if (items === null) return;
  let group = ctx.tree.writeGroup?.();
  const waiting = new Map<string, Download>();
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
        await flushing.next(host, group, waiting);
        group = ctx.tree.writeGroup?.();
      }
    }
    if (group && group.size > 0) {
      await flushing.next(host, group, waiting);
      group = undefined;
    }
  } finally {
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
  let current: Requested;
  try {
    current = await requestChunk(host, first);
  } catch (error) {
    if (!isMissingRoute(error)) throw error;
    withoutBatch.add(satchel);
    return downloads;
  }
  // Each next chunk is checked and asked for while this one is written: the server reads its
  // files while the tree writes and flushes these.
  const flushing = new Flushing();
  try {
    for (const chunk of rest) {
      const next = requestChunk(host, chunk);
      next.catch(() => undefined);
      try {
        await writeChunk(host, current, flushing);
      } catch (error) {
        await release(next);
        throw error;
      }
      current = await next;
    }
    await writeChunk(host, current, flushing);
    await flushing.settled();
  } finally {
    // A failure leaves no flush running behind it.
    await flushing.settled().catch(() => undefined);
  }
  return [];
}
