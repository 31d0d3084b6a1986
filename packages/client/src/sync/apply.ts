/**
 * Executes a plan with bounded parallelism. Every upload is a conditional write on the seq the
 * plan saw (or create-only), every download an atomic replace of a file checked unchanged since
 * the scan, and the state is recorded after each applied action. A change that raced another
 * writer (PRECONDITION_FAILED, LOCKED, a file edited since the scan) is left for the next cycle.
 * A path the tree refuses because a folder on the way became a symbolic link since the scan is
 * reported skipped (`symlink`) and its state left as it was, so nothing is deleted for it.
 */
import { eachLimit } from '../each-limit.js';
import { isSatchelError } from '../errors.js';
import type { BatchFile } from '../operations/satchel.js';
import type { FileInfo } from '../schemas/index.js';
import type { SyncConflict } from '../schemas/sync.js';
import { resumableUpload, skipBytes } from '../transfer/resumable-upload.js';
import {
  type ApplyContext,
  type ApplyResult,
  bytesOf,
  emptyApplyResult,
  type SyncProgress,
  written,
} from './apply-context.js';
import { batches, raced, readAll, typeMismatch, unchangedSince } from './apply-parts.js';
import { type BatchHost, type Download, downloadInBatches, type Upload } from './batch-apply.js';
import { uploadInBatches } from './batch-upload.js';
import {
  conflictPath,
  type HashedFile,
  hashed,
  type LocalFile,
  type RemoteFile,
  type SyncAction,
} from './plan.js';
import { hashFile, withHash } from './scan.js';
import type { FileState } from './state.js';
import { SymlinkInPathError, type WrittenFile } from './tree.js';

export { type ApplyContext, type ApplyResult, emptyApplyResult, type SyncProgress };

/** Files up to this size are uploaded in JSON batches (`batches`: one transaction each). */
const BATCH_FILE_MAX = 64 * 1024;
/**
 * Unless told (`batchTransfer`), a pass moving fewer files goes one by one: a watch cycle's edit
 * is one call, not a hash question and a stream.
 */
const BATCH_MIN_FILES = 16;
/** Files from this size are first offered by hash: the workspace may hold the content already. */
const BY_HASH_MIN = 256 * 1024;

/** The tree name of a workspace path that has no file in the tree yet. */
export function treeName(path: string): string {
  return path.slice(1);
}

/** Applies plans against one workspace and tree. */
export class Applier implements BatchHost {
  readonly result: ApplyResult = emptyApplyResult();
  private done = 0;
  private total = 0;
  private totalBytes = 0;
  private resumed = 0;

  constructor(readonly ctx: ApplyContext) {}

  /**
   * Downloads and uploads go in batches (batch-apply.ts) — but files large enough to go as
   * resumable uploads, which resume where a batch would start over; everything else, and what a
   * server without batch routes leaves, goes one by one. With `batchTransfer: false`, or unset
   * and fewer than 16 files to move, everything goes one by one (small uploads in JSON batches).
   */
  async apply(actions: readonly SyncAction[]): Promise<void> {
    this.total += actions.length;
    this.totalBytes += actions.reduce((sum, action) => sum + bytesOf(action), 0);
    const { resumableAbove } = this.ctx;
    const moves = actions.filter((a) => a.kind === 'upload' || a.kind === 'download').length;
    const { batchTransfer } = this.ctx;
    const batchDownloads = batchTransfer ?? moves >= BATCH_MIN_FILES;
    const batchUploads = batchDownloads;
    if (!batchDownloads && !batchUploads) {
      try {
        return await this.oneByOne(actions);
      } finally {
        await this.ctx.state.flush();
      }
    }
    const uploads: Upload[] = [];
    const downloads: Download[] = [];
    const rest: SyncAction[] = [];
    for (const action of actions) {
      if (action.kind === 'download' && batchDownloads) downloads.push(action);
      else if (
        action.kind === 'upload' &&
        batchUploads &&
        (resumableAbove === undefined || action.local.size < resumableAbove)
      ) {
        uploads.push(action);
      } else rest.push(action);
    }
    try {
      const [up, down] = await Promise.all([
        uploadInBatches(this, uploads),
        downloadInBatches(this, downloads),
        this.oneByOne(rest),
      ]);
      await this.oneByOne([...up, ...down]);
    } finally {
      await this.ctx.state.flush();
    }
  }

  /** The calls every server has: small uploads in JSON batches, the rest one file per call. */
  private async oneByOne(actions: readonly SyncAction[]): Promise<void> {
    if (actions.length === 0) return;
    const small: Upload[] = [];
    const rest: SyncAction[] = [];
    for (const action of actions) {
      const batchable =
        action.kind === 'upload' &&
        action.local.size <= BATCH_FILE_MAX &&
        (action.local.hash === null || !this.ctx.remoteHashes.has(action.local.hash));
      if (batchable) small.push(action);
      else rest.push(action);
    }
    const units: Array<() => Promise<void>> = [];
    for (const batch of batches(small)) units.push(() => this.uploadBatch(batch));
    for (const action of rest) units.push(() => this.one(action));
    await eachLimit(units, this.ctx.concurrency, (unit) => unit());
  }

  uploaded(info: { seq: number; size: number; hash: string | null }, local: LocalFile): FileState {
    return this.stateOf(info, local);
  }

  downloaded(remote: RemoteFile, at: WrittenFile): FileState {
    return written(remote, at);
  }

  async unchanged(name: string, expect: LocalFile | null): Promise<boolean> {
    return unchangedSince(await this.ctx.tree.stat(name), expect);
  }

  typeMismatch(path: string): void {
    this.result.skipped.push({
      path,
      reason: 'type_mismatch',
      detail: 'a file on one side is a folder on the other',
    });
  }

  tick(count: number): void {
    this.done += count;
    this.ctx.onProgress?.({
      done: this.done,
      total: this.total,
      bytes: this.result.bytesUp + this.result.bytesDown,
      totalBytes: this.totalBytes,
      resumed: this.resumed,
    });
  }

  private async one(action: SyncAction): Promise<void> {
    try {
      await this.run(action);
    } catch (error) {
      if (raced(error)) this.result.retry++;
      else if (action.kind === 'upload' && this.unreadable(action, error)) return;
      else if (error instanceof SymlinkInPathError) this.refused(action.path, error);
      // REDACTED: an owner removed this content for good, nothing to sync. TOO_LARGE: the
      // tree cannot hold a file this large (a sandbox's cap). Reported; the rest goes on.
      else if (isSatchelError(error, 'REDACTED') || isSatchelError(error, 'TOO_LARGE')) {
        const reason = error.code === 'REDACTED' ? 'redacted' : 'too_large';
        this.result.skipped.push({ path: action.path, reason, detail: error.message });
      } else if (typeMismatch(error)) this.typeMismatch(action.path);
      else throw error;
    } finally {
      this.tick(1);
    }
  }

  /**
   * Whether `error`, met reading the file of `upload`, is a refusal of the tree, now reported:
   * a link on the way (`symlink`), a file too large for the tree to read (`too_large`, as the
   * scan reports it). A file gone since the scan is left to the next pass.
   */
  unreadable(upload: Upload, error: unknown): boolean {
    if (error instanceof SymlinkInPathError) this.refused(upload.path, error);
    else if (isSatchelError(error, 'TOO_LARGE')) {
      const detail = error.message;
      this.result.skipped.push({ path: upload.local.name, reason: 'too_large', detail });
    } else if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') this.result.retry++;
    else return false;
    return true;
  }

  refused(path: string, error: SymlinkInPathError): void {
    this.result.skipped.push({ path, reason: 'symlink', detail: error.message });
  }

  private async run(action: SyncAction): Promise<void> {
    const { state } = this.ctx;
    switch (action.kind) {
      case 'record':
        return state.set(action.path, action.file);
      case 'forget':
        return state.delete(action.path);
      case 'upload': {
        const local =
          action.local.hash === null ? await hashFile(this.ctx.tree, action.local) : action.local;
        const info = await this.upload(action.path, hashed(local), action.ifMatch);
        return state.set(action.path, this.stateOf(info, local));
      }
      case 'download':
        return this.download(action.path, action.remote, action.expect);
      case 'delete-local': {
        if (!unchangedSince(await this.ctx.tree.stat(action.local.name), action.local)) {
          this.result.retry++;
          return;
        }
        await this.ctx.tree.remove(action.local.name);
        this.result.deletedLocal++;
        return state.delete(action.path);
      }
      case 'delete-remote': {
        try {
          await this.ctx.satchel.remove(this.ctx.workspace, action.path, {
            ifMatch: action.remote.seq,
            ...this.session(),
          });
          this.result.deletedRemote++;
          if (this.ctx.own) this.ctx.own.unaccounted = true;
        } catch (error) {
          if (!isSatchelError(error, 'NOT_FOUND')) throw error;
        }
        return state.delete(action.path);
      }
      case 'conflict':
        return this.conflict(action.path, action.local, action.remote, action.base);
    }
  }

  private session(): { session?: string } {
    return this.ctx.session === undefined ? {} : { session: this.ctx.session };
  }

  /**
   * The state after an upload (its seq recorded as the cycle's own); an mtime of -1 makes the
   * next scan hash the file again.
   */
  private stateOf(
    info: { seq: number; size: number; hash: string | null },
    local: LocalFile,
  ): FileState {
    this.ctx.own?.seqs.set(info.seq, local.path);
    const hash = info.hash ?? '';
    return written(
      { seq: info.seq, hash, size: info.size },
      { mtimeMs: hash === local.hash ? local.mtimeMs : -1, ino: local.ino },
    );
  }

  private async upload(path: string, local: HashedFile, ifMatch: number | null): Promise<FileInfo> {
    const { satchel, workspace } = this.ctx;
    const options = {
      ...(ifMatch === null ? { ifNoneMatch: '*' as const } : { ifMatch }),
      ...this.session(),
    };
    if (this.ctx.remoteHashes.has(local.hash) || local.size >= BY_HASH_MIN) {
      try {
        const info = await satchel.writeFileByHash(workspace, path, local.hash, options);
        this.result.uploaded++;
        this.result.deduplicated++;
        return info;
      } catch (error) {
        if (!isSatchelError(error, 'NOT_FOUND') || error.data.reason !== 'content_unknown') {
          throw error;
        }
      }
    }
    const { tree, resumableAbove } = this.ctx;
    const info =
      resumableAbove !== undefined && local.size >= resumableAbove
        ? await resumableUpload(
            satchel,
            workspace,
            path,
            { size: local.size, open: (start) => skipBytes(tree.read(local.name), start) },
            {
              ...options,
              sha256: local.hash,
              onResume: (bytes) => {
                this.resumed += bytes;
                this.tick(0);
              },
            },
          )
        : await satchel.writeFile(workspace, path, tree.read(local.name), options);
    this.result.uploaded++;
    this.result.bytesUp += info.size;
    return info;
  }

  /** Small files in one transaction; if any condition fails, each goes on its own. */
  private async uploadBatch(all: readonly Upload[]): Promise<void> {
    const files: BatchFile[] = [];
    const batch: Upload[] = [];
    for (const action of all) {
      let content: Buffer;
      try {
        content = await readAll(this.ctx.tree.read(action.local.name));
      } catch (error) {
        if (!this.unreadable(action, error)) throw error;
        this.tick(1);
        continue;
      }
      const { local } = action;
      batch.push(local.hash === null ? { ...action, local: withHash(local, content) } : action);
      files.push({
        path: action.path,
        content,
        ...(action.ifMatch === null ? { ifNoneMatch: '*' as const } : { ifMatch: action.ifMatch }),
      });
    }
    if (batch.length === 0) return;
    let infos: FileInfo[];
    try {
      infos = await this.ctx.satchel.writeFiles(this.ctx.workspace, files, this.session());
    } catch (error) {
      if (!raced(error) && !typeMismatch(error)) throw error;
      for (const action of batch) await this.one(action);
      return;
    }
    for (const [i, action] of batch.entries()) {
      const info = infos[i];
      if (!info) continue;
      this.result.uploaded++;
      this.result.bytesUp += info.size;
      await this.ctx.state.set(action.path, this.stateOf(info, action.local));
    }
    this.tick(batch.length);
  }

  private async download(path: string, remote: RemoteFile, expect: LocalFile | null) {
    const name = expect?.name ?? treeName(path);
    if (!unchangedSince(await this.ctx.tree.stat(name), expect)) {
      this.result.retry++;
      return;
    }
    await this.ctx.state.set(path, written(remote, await this.fetch(path, remote, name)));
  }

  private async fetch(path: string, remote: RemoteFile, name: string) {
    const file = await this.ctx.satchel.readFile(this.ctx.workspace, path, {
      version: remote.seq,
      ...this.session(),
    });
    const written = await this.ctx.tree.write(name, file.body);
    this.result.downloaded++;
    this.result.bytesDown += written.size;
    return written;
  }

  /**
   * Keeps the tree's version beside the path (renamed, then uploaded create-only), and puts the
   * workspace version at the path. Each step is recorded, so a crash between them loses nothing:
   * the next cycle uploads the kept copy or downloads the workspace version.
   */
  private async conflict(
    path: string,
    local: HashedFile,
    remote: RemoteFile,
    base: FileState | null,
  ): Promise<void> {
    const { tree, state, clock, label } = this.ctx;
    if (!unchangedSince(await tree.stat(local.name), local)) {
      this.result.retry++;
      return;
    }
    const now = clock();
    const keptAs = conflictPath(path, label, now, this.ctx.taken);
    const keptName = `${local.name.slice(0, local.name.lastIndexOf('/') + 1)}${keptAs.slice(keptAs.lastIndexOf('/') + 1)}`;
    await tree.rename(local.name, keptName);
    const moved: HashedFile = { ...local, path: keptAs, name: keptName };
    const keptInfo = await this.upload(keptAs, moved, null);
    await state.set(keptAs, this.stateOf(keptInfo, moved));
    await state.set(path, written(remote, await this.fetch(path, remote, local.name)));
    const conflict: SyncConflict = {
      path,
      base: base === null ? null : { seq: base.seq, hash: base.hash },
      ours: { hash: local.hash, size: local.size },
      theirs: { seq: remote.seq, hash: remote.hash, size: remote.size },
      keptAs,
      label,
      time: new Date(now).toISOString(),
    };
    this.result.conflicts.push(conflict);
    await state.addConflict(conflict);
  }
}
