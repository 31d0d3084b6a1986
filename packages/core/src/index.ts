/** @satchel/core: the engine, its stores, and the shared vocabulary of every frontend. */

export type { ErrorCode } from '@satchel/client/errors.js';
export {
  ERROR_CODES,
  ERROR_STATUS,
  isSatchelError,
  SatchelError,
  toSatchelError,
} from '@satchel/client/errors.js';
export { excludeMatcher, globMatcher } from '@satchel/client/glob.js';
export {
  OPERATION_NAMES,
  OPERATIONS,
  type OperationMethods,
  type OperationName,
  type Operations,
} from '@satchel/client/operations/index.js';
export type {
  ArgSpec,
  HttpBinding,
  OperationSpec,
  QueryType,
} from '@satchel/client/operations/operation.js';
export type {
  BatchFile,
  Content,
  FileStream,
  Satchel,
} from '@satchel/client/operations/satchel.js';
export { parseOptions } from '@satchel/client/options.js';
export {
  baseName,
  isWithin,
  MAX_PATH_BYTES,
  MAX_SEGMENT_BYTES,
  normalizeEntryPath,
  normalizeFilePath,
  normalizePath,
  parentOf,
  validateWorkspaceName,
} from '@satchel/client/paths.js';
export { HEADER_OPTIONS, hasBody, pathArgs } from '@satchel/client/remote/binding.js';
export { RemoteSatchel, type RemoteSatchelOptions } from '@satchel/client/remote/remote-satchel.js';
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
  CreateLoginLink,
  CreatePrincipal,
  CreateWebhook,
  DiffOptions,
  DiffResult,
  Edit,
  EditOptions,
  EditResult,
  FileInfo,
  Fork,
  ForkOptions,
  FsckReport,
  GcOptions,
  GcReport,
  GrepHit,
  GrepOptions,
  GrepResult,
  Invitation,
  KeyInfo,
  ListChangesOptions,
  ListOptions,
  ListPage,
  Lock,
  LoginLink,
  Member,
  Membership,
  MembershipChange,
  MergeChange,
  MergeConflict,
  MergeOptions,
  MergePreview,
  MergePreviewOptions,
  MergeResult,
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
  TransferUrl,
  UndoChange,
  UndoConflict,
  UndoOptions,
  UndoPreview,
  UndoPreviewOptions,
  UndoResult,
  UndoState,
  UndoTarget,
  UpdateWebhook,
  UpdateWorkspace,
  Upload,
  Version,
  Webhook,
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookPayload,
  WebSession,
  WhoAmI,
  Workspace,
  WorkspaceInfo,
  WorkspaceSettings,
  WriteOptions,
} from '@satchel/client/schemas/index.js';
export type {
  SyncConflict,
  SyncMode,
  SyncNotice,
  SyncReport,
  SyncSkipped,
  SyncStatus,
} from '@satchel/client/schemas/sync.js';
export { folderPattern, IGNORE_FILE } from '@satchel/client/sync/ignore.js';
export { LocalTree } from '@satchel/client/sync/local-tree.js';
export {
  conflictPath,
  DEFAULT_MAX_DELETE_SHARE,
  type LocalFile,
  type Plan,
  type PlanInput,
  plan,
  type RemoteFile,
  type SyncAction,
} from '@satchel/client/sync/plan.js';
export {
  type SyncOptions,
  type SyncProgress,
  syncOnce,
  syncStatus,
} from '@satchel/client/sync/sync.js';
export {
  STATE_DIR,
  type SyncTree,
  type TreeEntry,
  type TreeWatcher,
} from '@satchel/client/sync/tree.js';
export { type WatchOptions, watch as watchSync } from '@satchel/client/sync/watch.js';
export {
  extractUpload,
  packDownload,
  TAR_MEDIA_TYPE,
} from '@satchel/client/transfer/batch-tar.js';
export {
  DEFAULT_PART_SIZE,
  DEFAULT_RESUMABLE_THRESHOLD,
  type ResumableSource,
  type ResumableUploadOptions,
  resumableUpload,
  skipBytes,
  sourceHash,
} from '@satchel/client/transfer/resumable-upload.js';
export type { Refusal } from './audit/refusal-log.js';
export { KEY_PREFIX } from './auth/keys.js';
export type { RateBudgets, RateCount } from './auth/rate-budgets.js';
export { applyEdits } from './engine/edit.js';
export {
  collectGarbage,
  type GcProgress,
  type GcRunOptions,
  type GcSchedule,
  type GcScheduleOptions,
  scheduleGc,
} from './engine/gc.js';
export {
  type MigrateOptions,
  type MigrateProgress,
  type MigrateReport,
  migrateToPostgres,
  type TableCount,
} from './engine/migrate.js';
export {
  type MigrateBlobsOptions,
  type MigrateBlobsProgress,
  type MigrateBlobsReport,
  migrateBlobs,
} from './engine/migrate-blobs.js';
export type { OpenSatchelOptions } from './engine/open.js';
export {
  ADMIN_KEY_FILE,
  AUDIT_CHECKPOINT_FILE,
  BLOBS_DIR,
  DATABASE_FILE,
  DEFAULT_LIMITS,
  openSatchel,
} from './engine/open.js';
export type { Readiness, SatchelEngine } from './engine/satchel-engine.js';
export type { ShareRequest, ShareView } from './engine/share-link-views.js';
export {
  WEB_SESSION_SECONDS,
  type WebSignIn,
  type WebSignInStarted,
} from './engine/web-sessions.js';
export type { Actor, KeyScope } from './kernel/actor.js';
export type { EngineLimits } from './kernel/context.js';
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
export { redactUrl } from './store/metadata/postgres.js';
export { openSqlite, SQLITE_DIALECT } from './store/metadata/sqlite.js';
export {
  type BlobsConfig,
  blobsConfig,
  databaseUrlConfig,
  describeBlobs,
  type MetadataConfig,
  type PostgresConfig,
  type S3BlobsConfig,
  type SqliteConfig,
  type StoreConfig,
} from './store/open-stores.js';
export { S3BlobStore, type S3BlobStoreOptions } from './store/s3-blob-store.js';
export {
  DEFAULT_RETRY_SCHEDULE_MS,
  type WebhookDispatcher,
  type WebhookDispatchOptions,
} from './webhooks/dispatcher.js';
export { parseWebhookKey, WEBHOOK_KEY_FILE } from './webhooks/secret-box.js';
