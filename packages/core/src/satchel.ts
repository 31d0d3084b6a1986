/**
 * The Satchel interface: everything a caller can do with workspaces. Implemented by the engine
 * (`openSatchel`) and, over HTTP, by `RemoteSatchel`; every frontend takes either.
 *
 * Paths are validated by core (`normalizePath`): INVALID_PATH. Unknown workspaces, files and
 * versions: NOT_FOUND. Options are validated against the schemas in `schemas.ts`: INVALID_INPUT.
 * A call that fails writes nothing.
 */
import type { Readable } from 'node:stream';
import type { Actor } from './auth/actor.js';
import type {
  AcquireLock,
  AppendOptions,
  AskOptions,
  AskResult,
  AuditEntryOut,
  AuditQuery,
  AuditVerificationOut,
  ByteRange,
  CallOptions,
  ChangesPage,
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
  WebhookDelivery,
  WhoAmI,
  Workspace,
  WorkspaceInfo,
  WriteOptions,
} from './schemas.js';
import type { WebhookDispatcher, WebhookDispatchOptions } from './webhooks/dispatcher.js';

/** File content: text (UTF-8), bytes, or a stream of bytes of any length (consumed once). */
export type Content = string | Uint8Array | AsyncIterable<Uint8Array | string>;

export interface FileStream {
  readonly info: FileInfo;
  /** The requested bytes [range.start, range.end); each piece is verified before it is emitted. */
  readonly body: Readable;
  readonly range: Required<ByteRange>;
}

export interface BatchFile {
  readonly path: string;
  readonly content: string | Uint8Array;
  readonly ifMatch?: number;
  readonly ifNoneMatch?: '*';
}

export interface Satchel {
  createWorkspace(name: string, options?: CallOptions): Promise<Workspace>;
  listWorkspaces(options?: PageOptions): Promise<Page<Workspace>>;
  getWorkspace(name: string): Promise<WorkspaceInfo>;
  /** Deletes the workspace with all its files and history. */
  deleteWorkspace(name: string, options?: CallOptions): Promise<void>;
  /**
   * Changes a workspace's settings (owners): `indexing: 'off'` drops its search index,
   * `'on'` rebuilds it. Returns the workspace as `getWorkspace` does.
   */
  updateWorkspace(name: string, settings: UpdateWorkspace): Promise<WorkspaceInfo>;

  /**
   * Writes a new version of a file, creating parent directories. Streams of any size are hashed
   * while they are stored, in flat memory. PRECONDITION_FAILED when `ifMatch` is not the head
   * seq or `ifNoneMatch: '*'` and the file exists; CONFLICT when the path or a parent is of the
   * other type; TOO_LARGE over the configured maximum file size.
   */
  writeFile(
    workspace: string,
    path: string,
    content: Content,
    options?: WriteOptions,
  ): Promise<FileInfo>;
  /**
   * Writes a new version of `path` holding content the workspace already has (any version of
   * any path, history included), named by its SHA-256: no bytes travel. Same conditions as
   * `writeFile`. NOT_FOUND (`data.reason: 'content_unknown'`) when the workspace holds no such
   * content: upload it with `writeFile`. Content of other workspaces is never reachable.
   */
  writeFileByHash(
    workspace: string,
    path: string,
    hash: string,
    options?: WriteOptions,
  ): Promise<FileInfo>;
  /** Writes many small files in one transaction: all of them or none. */
  writeFiles(
    workspace: string,
    files: readonly BatchFile[],
    options?: MutationOptions,
  ): Promise<FileInfo[]>;
  /** Appends to a file (creating it). Appending nothing changes nothing. */
  appendFile(
    workspace: string,
    path: string,
    content: Content,
    options?: AppendOptions,
  ): Promise<FileInfo>;
  readFile(workspace: string, path: string, options?: ReadOptions): Promise<FileStream>;
  /** Reads text by lines (head, tail, offset/limit), bounded by `maxBytes`; INVALID_INPUT for binary files. */
  readText(workspace: string, path: string, options?: ReadTextOptions): Promise<TextSlice>;
  stat(workspace: string, path: string, options?: { version?: number }): Promise<FileInfo>;
  /** Lists a directory (or a subtree, or a glob), in path order, paginated, with the total. */
  list(workspace: string, options?: ListOptions): Promise<ListPage>;
  mkdir(workspace: string, path: string, options?: MutationOptions): Promise<FileInfo>;
  /** Deletes a file (a tombstone version) or a directory (`recursive` when not empty). */
  remove(workspace: string, path: string, options?: RemoveOptions): Promise<RemoveResult>;
  /** Moves a file or directory; history follows. CONFLICT if the destination exists unless `overwrite`. */
  move(workspace: string, from: string, to: string, options?: MoveOptions): Promise<FileInfo>;
  /** Copies without copying content (same hash). */
  copy(workspace: string, from: string, to: string, options?: CopyOptions): Promise<FileInfo>;
  /**
   * Applies text replacements in order. An `oldText` found nowhere, or in several places without
   * `replaceAll`, fails with INVALID_INPUT naming the edit and the match count.
   */
  editFile(
    workspace: string,
    path: string,
    edits: readonly Edit[],
    options?: EditOptions,
  ): Promise<EditResult>;

  /** Versions of a path, newest first, following the file back across moves. */
  listVersions(workspace: string, path: string, options?: PageOptions): Promise<Page<Version>>;
  diff(workspace: string, path: string, options?: DiffOptions): Promise<DiffResult>;
  /** Makes the content of version `seq` the head again, as a new version. */
  restore(workspace: string, path: string, seq: number, options?: WriteOptions): Promise<FileInfo>;

  /**
   * The workspace's changes after a seq, oldest first, bounded and never splitting one change;
   * `waitSeconds` long-polls for the next one. Pass `cursor` back as `after` to continue.
   */
  listChanges(workspace: string, options?: ListChangesOptions): Promise<ChangesPage>;

  /**
   * Content search over the current files: a literal (or, with `regex`, an RE2 expression: no
   * backreferences or lookaround, INVALID_INPUT naming the problem) line by line, skipping
   * binary files, bounded by a hit limit and time, file and byte budgets (`truncated`, `reason`).
   */
  grep(workspace: string, pattern: string, options?: GrepOptions): Promise<GrepResult>;
  /**
   * BM25-ranked passages of text files (hybrid with vectors when an embedding provider is
   * configured), each with a citation `{path, seq, lineStart, lineEnd}` that stays readable
   * (`readText` with `version: seq, offset: lineStart`). Sees the caller's own writes.
   * INVALID_INPUT for an empty query or when the workspace's indexing is off.
   */
  search(workspace: string, query: string, options?: SearchOptions): Promise<SearchResult>;
  /**
   * Retrieves passages for `question` and, when a language model is configured, answers from
   * them alone with [n] citations (citations of no retrieved passage are dropped); without
   * one, returns the passages with `answer: null` and a note. Nothing leaves the machine
   * unless a provider is configured.
   */
  ask(workspace: string, question: string, options?: AskOptions): Promise<AskResult>;
  /** The search index of a workspace: enabled, indexed seq, lag, passages, vectors. */
  searchStatus(workspace: string): Promise<SearchStatus>;
  /** Rebuilds the workspace's search index from its current files (owners). */
  reindex(workspace: string, options?: CallOptions): Promise<SearchStatus>;

  /** Locks a file or subtree; the returned token fences writes (pass it as `lockToken`). */
  acquireLock(workspace: string, options: AcquireLock): Promise<Lock>;
  renewLock(
    workspace: string,
    lockId: string,
    options?: { ttlSeconds?: number } & CallOptions,
  ): Promise<Lock>;
  releaseLock(workspace: string, lockId: string, options?: CallOptions): Promise<void>;
  /** Releases someone else's lock (owners only); audited. */
  breakLock(workspace: string, lockId: string, options?: CallOptions): Promise<Lock>;
  listLocks(workspace: string, options?: { path?: string }): Promise<Lock[]>;

  whoami(): Promise<WhoAmI>;
  createPrincipal(input: CreatePrincipal): Promise<Principal>;
  listPrincipals(options?: PageOptions): Promise<Page<Principal>>;
  /** Creates an API key; the secret is in the result only. Non-admins get keys for themselves, no wider than their own. */
  createKey(input?: CreateKey): Promise<CreatedKey>;
  listKeys(options?: { all?: boolean }): Promise<KeyInfo[]>;
  revokeKey(id: string): Promise<KeyInfo>;
  listMembers(workspace: string): Promise<Member[]>;
  setMember(
    workspace: string,
    principal: string,
    role: Role,
    options?: CallOptions,
  ): Promise<Member>;
  removeMember(workspace: string, principal: string, options?: CallOptions): Promise<void>;
  offerTransfer(workspace: string, options?: OfferTransfer): Promise<TransferOffer>;
  listTransfers(workspace: string): Promise<Transfer[]>;
  cancelTransfer(workspace: string, id: string, options?: CallOptions): Promise<Transfer>;
  acceptTransfer(code: string, options?: CallOptions): Promise<Transfer>;

  /**
   * Subscribes a URL to the workspace's changes from now on (owners). The signing secret is in
   * the result only. INVALID_INPUT for a URL that is not http(s), carries credentials, or
   * resolves to a non-public address the server does not allow (`data.reason: 'ssrf'`).
   */
  createWebhook(workspace: string, input: CreateWebhook): Promise<CreatedWebhook>;
  listWebhooks(workspace: string): Promise<Webhook[]>;
  getWebhook(workspace: string, id: string): Promise<Webhook>;
  /** Changes a subscription; `enabled: true` resumes a disabled one (after a 410) from now on. */
  updateWebhook(workspace: string, id: string, change: UpdateWebhook): Promise<Webhook>;
  deleteWebhook(workspace: string, id: string): Promise<void>;
  /** The delivery log of a subscription, newest event first, each with its attempts. */
  listWebhookDeliveries(
    workspace: string,
    id: string,
    options?: PageOptions,
  ): Promise<Page<WebhookDelivery>>;

  /** Audit entries, oldest first; of one workspace (its owners) or of all (admins). */
  listAudit(options?: AuditQuery): Promise<Page<AuditEntryOut>>;
  /** Recomputes the hash chain and checks the checkpoint; names the first broken entry. */
  verifyAudit(): Promise<AuditVerificationOut>;
  /** The whole log as JSON lines (admins). */
  exportAudit(): AsyncIterable<string>;

  /** Re-hashes all content and checks every reference (admin). */
  fsck(): Promise<FsckReport>;
  close(): Promise<void>;
}

/** The engine itself: a Satchel acting as the data directory's admin, and the way to others. */
export interface SatchelEngine extends Satchel {
  /** The actor an API key stands for; UNAUTHENTICATED if it is malformed, unknown, revoked or expired. */
  authenticate(key: string): Promise<Actor>;
  /** The same engine acting as `actor`: every call is authorised and audited as that actor. */
  as(actor: Actor): Satchel;
  /** The admin key, when this open created it (first start on an empty data directory). */
  readonly createdAdminKey: string | null;
  /**
   * Starts delivering webhooks from this process (`satchel serve` does; short-lived commands
   * never do). CONFLICT if one already runs; `close()` stops it first.
   */
  startWebhooks(options?: WebhookDispatchOptions): WebhookDispatcher;
  /** Webhook deliveries waiting for an attempt, across all workspaces (for metrics). */
  webhookQueueDepth(): Promise<number>;
}
