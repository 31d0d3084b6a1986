/**
 * `openSatchel`: the embedded engine on a data directory (SQLite file + blob directory), as a
 * `Satchel`. Stores, clock and limits can be injected; defaults are the durable ones.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Actor, UNSCOPED } from '../auth/actor.js';
import { SatchelError } from '../errors.js';
import type { BatchFile, Content, FileStream, Satchel } from '../satchel.js';
import type * as S from '../schemas.js';
import type { BlobStore } from '../store/blob-store.js';
import { FsBlobStore } from '../store/fs-blob-store.js';
import { GroupCommitter } from '../store/group-commit.js';
import { MemoryBlobStore } from '../store/memory-blob-store.js';
import { MetadataStore } from '../store/metadata/metadata-store.js';
import { openSqlite, SQLITE_DIALECT } from '../store/metadata/sqlite.js';
import type { EngineContext, EngineLimits } from './context.js';
import { editFile } from './edit.js';
import { fsck } from './fsck.js';
import { diff, listVersions } from './history.js';
import { list, readFile, readText, stat } from './read.js';
import { copy, move, remove } from './tree.js';
import { createWorkspace, deleteWorkspace, getWorkspace, listWorkspaces } from './workspaces.js';
import { appendFile, mkdir as makeDirectory, restore, writeFile, writeFiles } from './write.js';

export const DEFAULT_LIMITS: EngineLimits = {
  maxFileSize: 5 * 1024 ** 3,
  inlineThreshold: 64 * 1024,
  maxTextBytes: 16 * 1024 * 1024,
};

/** The actor of a local engine until authentication exists: the data directory's owner. */
export const LOCAL_ACTOR: Actor = {
  principalId: 'admin',
  name: 'admin',
  kind: 'user',
  admin: true,
  keyId: null,
  scope: UNSCOPED,
};

export interface OpenSatchelOptions {
  /** Data directory, created if missing; ":memory:" for a throwaway engine (tests). */
  readonly data: string;
  readonly limits?: Partial<EngineLimits>;
  /** Milliseconds since the epoch; injectable for tests. */
  readonly clock?: () => number;
  readonly blobs?: BlobStore;
  readonly metadata?: MetadataStore;
  readonly actor?: Actor;
}

export const DATABASE_FILE = 'satchel.db';
export const BLOBS_DIR = 'blobs';

/**
 * Opens (creating on first use) the engine on `options.data`. Refuses to run if the database
 * cannot commit durably (WAL and synchronous=FULL); migrates the schema to the newest version.
 */
export async function openSatchel(options: OpenSatchelOptions): Promise<Satchel> {
  const limits: EngineLimits = { ...DEFAULT_LIMITS, ...options.limits };
  if (limits.inlineThreshold > limits.maxFileSize) {
    throw new SatchelError('INVALID_INPUT', 'inlineThreshold must not exceed maxFileSize');
  }
  const memory = options.data === ':memory:';
  const root = memory ? null : resolve(options.data);
  if (root) await mkdir(root, { recursive: true, mode: 0o700 });
  const store =
    options.metadata ??
    new MetadataStore(openSqlite(root ? join(root, DATABASE_FILE) : ':memory:'), SQLITE_DIALECT);
  const blobs =
    options.blobs ?? (root ? await FsBlobStore.open(join(root, BLOBS_DIR)) : new MemoryBlobStore());
  await store.migrate();
  const committer = new GroupCommitter(store);
  const ctx: EngineContext = {
    store,
    blobs,
    clock: options.clock ?? Date.now,
    limits,
    actor: options.actor ?? LOCAL_ACTOR,
    commit: (op) => committer.run(op),
  };
  return new LocalSatchel(ctx);
}

/** The engine behind the Satchel interface; each method is one operation module's function. */
class LocalSatchel implements Satchel {
  #closed = false;

  constructor(private readonly ctx: EngineContext) {}

  createWorkspace(name: string, options?: S.CallOptions): Promise<S.Workspace> {
    return createWorkspace(this.ctx, name, options);
  }
  listWorkspaces(options?: S.PageOptions): Promise<S.Page<S.Workspace>> {
    return listWorkspaces(this.ctx, options);
  }
  getWorkspace(name: string): Promise<S.WorkspaceInfo> {
    return getWorkspace(this.ctx, name);
  }
  deleteWorkspace(name: string, options?: S.CallOptions): Promise<void> {
    return deleteWorkspace(this.ctx, name, options);
  }
  writeFile(
    ws: string,
    path: string,
    content: Content,
    options?: S.WriteOptions,
  ): Promise<S.FileInfo> {
    return writeFile(this.ctx, ws, path, content, options);
  }
  writeFiles(
    ws: string,
    files: readonly BatchFile[],
    options?: S.CallOptions,
  ): Promise<S.FileInfo[]> {
    return writeFiles(this.ctx, ws, files, options);
  }
  appendFile(
    ws: string,
    path: string,
    content: Content,
    options?: S.AppendOptions,
  ): Promise<S.FileInfo> {
    return appendFile(this.ctx, ws, path, content, options);
  }
  readFile(ws: string, path: string, options?: S.ReadOptions): Promise<FileStream> {
    return readFile(this.ctx, ws, path, options);
  }
  readText(ws: string, path: string, options?: S.ReadTextOptions): Promise<S.TextSlice> {
    return readText(this.ctx, ws, path, options);
  }
  stat(ws: string, path: string, options?: { version?: number }): Promise<S.FileInfo> {
    return stat(this.ctx, ws, path, options);
  }
  list(ws: string, options?: S.ListOptions): Promise<S.ListPage> {
    return list(this.ctx, ws, options);
  }
  mkdir(ws: string, path: string, options?: S.CallOptions): Promise<S.FileInfo> {
    return makeDirectory(this.ctx, ws, path, options);
  }
  remove(ws: string, path: string, options?: S.RemoveOptions): Promise<S.RemoveResult> {
    return remove(this.ctx, ws, path, options);
  }
  move(ws: string, from: string, to: string, options?: S.MoveOptions): Promise<S.FileInfo> {
    return move(this.ctx, ws, from, to, options);
  }
  copy(ws: string, from: string, to: string, options?: S.CopyOptions): Promise<S.FileInfo> {
    return copy(this.ctx, ws, from, to, options);
  }
  editFile(
    ws: string,
    path: string,
    edits: readonly S.Edit[],
    options?: S.EditOptions,
  ): Promise<S.EditResult> {
    return editFile(this.ctx, ws, path, edits, options);
  }
  listVersions(ws: string, path: string, options?: S.PageOptions): Promise<S.Page<S.Version>> {
    return listVersions(this.ctx, ws, path, options);
  }
  diff(ws: string, path: string, options?: S.DiffOptions): Promise<S.DiffResult> {
    return diff(this.ctx, ws, path, options);
  }
  restore(ws: string, path: string, seq: number, options?: S.WriteOptions): Promise<S.FileInfo> {
    return restore(this.ctx, ws, path, seq, options);
  }
  fsck(): Promise<S.FsckReport> {
    return fsck(this.ctx);
  }
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.ctx.store.close();
  }
}
