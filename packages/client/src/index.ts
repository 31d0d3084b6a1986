/**
 * @satchel/client: Satchel without the engine — the HTTP client (`RemoteSatchel`), the operation
 * table, zod schemas (`@satchel/client/schemas/index.js`), error codes, path rules and sync over
 * a tree. It loads no native module, so a sandbox agent or a browser bundle can use it; chokidar
 * loads only when a tree is watched. Deeper modules are reachable as `@satchel/client/<path>.js`.
 */
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
export type {
  BatchFile,
  Content,
  DownloadItem,
  FileStream,
  Satchel,
  UploadEntry,
} from './operations/satchel.js';
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
} from './paths.js';
export { HEADER_OPTIONS, hasBody, pathArgs } from './remote/binding.js';
export { RemoteSatchel, type RemoteSatchelOptions } from './remote/remote-satchel.js';
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
  Invitation,
  KeyInfo,
  ListChangesOptions,
  ListOptions,
  ListPage,
  Lock,
  Member,
  Membership,
  MembershipChange,
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
  UpdateWebhook,
  UpdateWorkspace,
  Upload,
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
} from './schemas/index.js';
export type {
  SyncConflict,
  SyncMode,
  SyncNotice,
  SyncReport,
  SyncSkipped,
  SyncStatus,
} from './schemas/sync.js';
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
  DEFAULT_PART_SIZE,
  DEFAULT_RESUMABLE_THRESHOLD,
  type ResumableSource,
  type ResumableUploadOptions,
  resumableUpload,
  skipBytes,
  sourceHash,
} from './transfer/resumable-upload.js';
