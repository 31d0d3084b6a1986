/** @satchel/core: the engine, its stores, and the shared vocabulary of every frontend. */

export type { EngineLimits } from './engine/context.js';
export { applyEdits } from './engine/edit.js';
export type { OpenSatchelOptions } from './engine/open.js';
export {
  BLOBS_DIR,
  DATABASE_FILE,
  DEFAULT_LIMITS,
  LOCAL_ACTOR,
  openSatchel,
} from './engine/open.js';
export type { ErrorCode } from './errors.js';
export {
  ERROR_CODES,
  ERROR_STATUS,
  isSatchelError,
  SatchelError,
  toSatchelError,
} from './errors.js';
export {
  baseName,
  isWithin,
  MAX_PATH_BYTES,
  MAX_SEGMENT_BYTES,
  normalizeEntryPath,
  normalizePath,
  parentOf,
  validateWorkspaceName,
} from './paths.js';
export type { BatchFile, Content, FileStream, Satchel } from './satchel.js';
export type {
  AppendOptions,
  CallOptions,
  CopyOptions,
  DiffOptions,
  DiffResult,
  Edit,
  EditOptions,
  EditResult,
  FileInfo,
  FsckReport,
  ListOptions,
  ListPage,
  MoveOptions,
  Page,
  PageOptions,
  ReadOptions,
  ReadTextOptions,
  RemoveOptions,
  RemoveResult,
  TextSlice,
  Version,
  Workspace,
  WorkspaceInfo,
  WriteOptions,
} from './schemas.js';
export type { BlobRef, BlobStore } from './store/blob-store.js';
export { FsBlobStore } from './store/fs-blob-store.js';
export { MemoryBlobStore } from './store/memory-blob-store.js';
export { MetadataStore } from './store/metadata/metadata-store.js';
export { openSqlite, SQLITE_DIALECT } from './store/metadata/sqlite.js';
