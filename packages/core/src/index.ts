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
export { excludeMatcher, globMatcher } from './glob.js';
export {
  OPERATION_NAMES,
  OPERATIONS,
  type OperationMethods,
  type OperationName,
  type Operations,
} from './operations/index.js';
export type {
  ArgSpec,
  HttpBinding,
  OperationSpec,
  QueryType,
} from './operations/operation.js';
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
export { HEADER_OPTIONS, hasBody, pathArgs } from './remote/binding.js';
export { RemoteSatchel, type RemoteSatchelOptions } from './remote/remote-satchel.js';
export {
  CodeSandboxProvider,
  type CsbClient,
  type CsbSandbox,
  type CsbSandboxes,
  codeSandboxProvider,
} from './sandbox/codesandbox.js';
export { LocalSandboxProvider } from './sandbox/local.js';
export type {
  BootKind,
  ExecOptions,
  ExecResult,
  SandboxHandle,
  SandboxProvider,
} from './sandbox/provider.js';
export {
  runInSandbox,
  type SandboxRunOptions,
  type SandboxRunResult,
} from './sandbox/run.js';
export type { BatchFile, Content, FileStream, Satchel, SatchelEngine } from './satchel.js';
export type {
  SyncConflict,
  SyncMode,
  SyncNotice,
  SyncReport,
  SyncSkipped,
  SyncStatus,
} from './schemas/sync.js';
export type {
  AcquireLock,
  AppendOptions,
  AskOptions,
  AskResult,
  AuditEntryOut,
  AuditQuery,
  AuditVerificationOut,
  CallOptions,
  ChangeEvent,
  ChangesPage,
  Citation,
  CopyOptions,
  CreatedKey,
  CreatedWebhook,
  CreateKey,
  CreatePrincipal,
  CreateWebhook,
  DiffOptions,
  DiffResult,
  Edit,
  EditOptions,
  EditResult,
  FileInfo,
  FsckReport,
  GrepHit,
  GrepOptions,
  GrepResult,
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
  SearchHit,
  SearchOptions,
  SearchResult,
  SearchStatus,
  TextSlice,
  Transfer,
  TransferOffer,
  UpdateWebhook,
  UpdateWorkspace,
  Version,
  Webhook,
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookPayload,
  WhoAmI,
  Workspace,
  WorkspaceInfo,
  WorkspaceSettings,
  WriteOptions,
} from './schemas.js';
export {
  type EmbeddingProvider,
  type OpenAiCompatibleOptions,
  OpenAiEmbeddings,
} from './search/embeddings.js';
export { type ChatMessage, type ChatProvider, OpenAiChat } from './search/llm.js';
export type { BlobRef, BlobStore } from './store/blob-store.js';
export { FsBlobStore } from './store/fs-blob-store.js';
export { MemoryBlobStore } from './store/memory-blob-store.js';
export { MetadataStore } from './store/metadata/metadata-store.js';
export { openSqlite, SQLITE_DIALECT } from './store/metadata/sqlite.js';
export { folderPattern, IGNORE_FILE } from './sync/ignore.js';
export { LocalTree } from './sync/local-tree.js';
export {
  conflictPath,
  DEFAULT_MAX_DELETE_SHARE,
  type LocalFile,
  type Plan,
  type PlanInput,
  plan,
  type RemoteFile,
  type SyncAction,
} from './sync/plan.js';
export {
  type SyncOptions,
  type SyncProgress,
  syncOnce,
  syncStatus,
} from './sync/sync.js';
export { STATE_DIR, type SyncTree, type TreeEntry, type TreeWatcher } from './sync/tree.js';
export { type WatchOptions, watch as watchSync } from './sync/watch.js';
export {
  DEFAULT_RETRY_SCHEDULE_MS,
  type WebhookDispatcher,
  type WebhookDispatchOptions,
} from './webhooks/dispatcher.js';
export { WEBHOOK_KEY_FILE } from './webhooks/secret-box.js';
