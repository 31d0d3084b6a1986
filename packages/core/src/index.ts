/** @satchel/core: the engine, its stores, and the shared vocabulary of every frontend. */

export type { Actor, KeyScope } from './auth/actor.js';
export { KEY_PREFIX } from './auth/keys.js';
export type { EngineLimits } from './engine/context.js';
export { applyEdits } from './engine/edit.js';
export type { OpenSatchelOptions } from './engine/open.js';
export {
  ADMIN_KEY_FILE,
  AUDIT_CHECKPOINT_FILE,
  BLOBS_DIR,
  DATABASE_FILE,
  DEFAULT_LIMITS,
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
export { RemoteSatchel, type RemoteSatchelOptions } from './remote/remote-satchel.js';
export type { BatchFile, Content, FileStream, Satchel, SatchelEngine } from './satchel.js';
export type {
  AcquireLock,
  AppendOptions,
  AuditEntryOut,
  AuditQuery,
  AuditVerificationOut,
  CallOptions,
  ChangeEvent,
  ChangesPage,
  CopyOptions,
  CreatedKey,
  CreateKey,
  CreatePrincipal,
  DiffOptions,
  DiffResult,
  Edit,
  EditOptions,
  EditResult,
  FileInfo,
  FsckReport,
  KeyInfo,
  ListChangesOptions,
  ListOptions,
  ListPage,
  Lock,
  Member,
  MoveOptions,
  MutationOptions,
  OfferTransfer,
  Page,
  PageOptions,
  Principal,
  ReadOptions,
  ReadTextOptions,
  RemoveOptions,
  RemoveResult,
  Role,
  TextSlice,
  Transfer,
  TransferOffer,
  Version,
  WhoAmI,
  Workspace,
  WorkspaceInfo,
  WriteOptions,
} from './schemas.js';
export type { BlobRef, BlobStore } from './store/blob-store.js';
export { FsBlobStore } from './store/fs-blob-store.js';
export { MemoryBlobStore } from './store/memory-blob-store.js';
export { MetadataStore } from './store/metadata/metadata-store.js';
export { openSqlite, SQLITE_DIALECT } from './store/metadata/sqlite.js';
