/** Row types of the metadata database (docs/storage.md describes every table and invariant). */

import type { Role } from '@satchel/client/schemas/access.js';
import type { Generated } from 'kysely';
import type {
  CommentsTable,
  ShareLinksTable,
  WebLoginLinksTable,
  WebSessionsTable,
} from './tables-people.js';

export interface MetaTable {
  key: string;
  value: string;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  /** Newest seq handed out; the next mutation gets seq + 1. */
  seq: Generated<number>;
  created_at: number;
  settings: Generated<string>;
  /** Newest fencing token handed out to a lock in this workspace. */
  fence: Generated<number>;
}

/** Current state of every live path: files and directories (explicit or implied by a file). */
export interface EntriesTable {
  workspace_id: string;
  path: string;
  parent: string;
  type: 'file' | 'directory';
  seq: number;
  size: number;
  hash: string | null;
  content_type: string | null;
  author: string;
  session: string | null;
  modified_at: number;
}

/** Every version of every path, tombstones included; immutable once written. */
export interface VersionsTable {
  workspace_id: string;
  path: string;
  seq: number;
  op: string;
  type: 'file' | 'directory';
  deleted: number;
  hash: string | null;
  size: number;
  content_type: string | null;
  author: string;
  session: string | null;
  message: string | null;
  origin_path: string | null;
  origin_seq: number | null;
  created_at: number;
}

/**
 * What a workspace stores, kept exact by triggers on `entries` and `versions` (the dialect's
 * `usageCounters`), so every mutation counts, whichever code path makes it (docs/storage.md).
 */
export interface WorkspaceUsageTable {
  workspace_id: string;
  /** Sum of the sizes of the current files. */
  current_bytes: number;
  /** Sum of the sizes of every version kept, current ones included. */
  history_bytes: number;
  /** Current files (directories not counted). */
  files: number;
}

/** Registry of all content: small content inline (`data`), large content in the BlobStore. */
export interface BlobsTable {
  hash: string;
  size: number;
  location: 'inline' | 'store';
  data: Uint8Array | null;
  chunk_size: number | null;
  chunks: Uint8Array | null;
  created_at: number;
}

export interface PrincipalsTable {
  id: string;
  name: string;
  kind: 'user' | 'agent';
  admin: Generated<number>;
  created_at: number;
}

/** API keys: only the SHA-256 of the secret is stored. Narrowing columns hold JSON arrays. */
export interface ApiKeysTable {
  id: string;
  principal_id: string;
  /** The key that minted this one (whoever this one is for); null for a root key (0005). */
  parent_id: string | null;
  secret_hash: string;
  label: string | null;
  workspaces: string | null;
  role_ceiling: Role | null;
  path_prefixes: string | null;
  read_only: Generated<number>;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

export interface MembersTable {
  workspace_id: string;
  principal_id: string;
  role: Role;
  created_at: number;
}

/**
 * Pending invitations to join a workspace, one per invited name. `principal_id` is null when no
 * principal had that name at invitation time: such an invitation can never be accepted.
 */
export interface InvitationsTable {
  id: string;
  workspace_id: string;
  principal_name: string;
  principal_id: string | null;
  role: Role;
  invited_by: string;
  created_at: number;
  expires_at: number;
}

/** Lock leases; a lock is live while `released_at` is null and `expires_at` is in the future. */
export interface LocksTable {
  id: string;
  workspace_id: string;
  path: string;
  scope: 'file' | 'tree';
  mode: 'exclusive' | 'shared';
  token: number;
  holder: string;
  session: string | null;
  acquired_at: number;
  expires_at: number;
  released_at: number | null;
  released_by: string | null;
}

export interface TransfersTable {
  id: string;
  workspace_id: string;
  code_hash: string;
  offered_by: string;
  to_principal: string | null;
  previous_owner_role: 'editor' | 'none';
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_by: string | null;
  cancelled_at: number | null;
}

/** The hash-chained audit log; triggers reject UPDATE and DELETE. */
export interface AuditTable {
  idx: number;
  time: number;
  actor: string;
  session: string | null;
  action: string;
  /** The workspace's name when the call was made, for display. */
  workspace: string | null;
  /**
   * The id of the workspace the call reached (0006): what a workspace's audit is read by. Null
   * for calls outside any workspace or against a name no workspace had, and for entries written
   * before 0006 (idx below meta `audit_workspace_id_from`).
   */
  workspace_id: string | null;
  path: string | null;
  seq: number | null;
  outcome: 'ok' | 'refused' | 'error';
  code: string | null;
  prev_hash: string;
  hash: string;
}

/** Webhook subscriptions; the signing secret is stored encrypted (webhooks/secret-box.ts). */
export interface WebhooksTable {
  id: string;
  workspace_id: string;
  url: string;
  /** JSON array of version ops. */
  events: string;
  path_glob: string | null;
  description: string | null;
  secret_ciphertext: string;
  enabled: number;
  disabled_reason: string | null;
  /** Newest workspace seq whose events have been queued for this subscription. */
  cursor: number;
  created_at: number;
  created_by: string;
}

/** The persisted delivery queue and log: one row per event per subscription. */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  workspace_id: string;
  event_seq: number;
  event_path: string;
  event_type: string;
  /** The exact JSON body sent on every attempt. */
  payload: string;
  status: 'pending' | 'delivered' | 'failed' | 'dead';
  attempts: Generated<number>;
  next_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

/** One row per attempt of a delivery. */
export interface WebhookAttemptsTable {
  delivery_id: string;
  workspace_id: string;
  attempt: number;
  at: number;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/** Passages of the current text files, for search; `vector` once an embedding provider ran. */
export interface PassagesTable {
  id: Generated<number>;
  workspace_id: string;
  path: string;
  /** The version the passage was cut from: its citation reads `version: seq`. */
  seq: number;
  line_start: number;
  line_end: number;
  text: string;
  /** Unit-length float32 vector, little-endian; null until embedded. */
  vector: Uint8Array | null;
}

/** Per workspace: how far the search index follows the change feed (its durable queue). */
export interface SearchStateTable {
  workspace_id: string;
  /** Every change up to this seq is reflected in `passages`. */
  indexed_seq: number;
  /** While rebuilding: the head seq the rebuild started at; null otherwise. */
  rebuild_seq: number | null;
  /** While rebuilding: files up to this path are done ('' before the first). */
  rebuild_after: string | null;
  /** The last failure of the embedding provider, cleared by the next success. */
  vector_error: string | null;
}

/** Rate-limit hits per key and window, summed over the nodes of one database. */
export interface RateWindowsTable {
  key: string;
  window_start: number;
  hits: number;
}

/**
 * Garbage collection's memory of content it is about to remove (store/metadata/gc-queries.ts,
 * docs/storage.md "Garbage collection"): `seen` — a blob-store file without a registry row,
 * first seen at `since`; `deleting` — content whose row is gone and whose bytes are being deleted.
 */
export interface GcBlobsTable {
  hash: string;
  state: 'seen' | 'deleting';
  since: number;
  checked_at: number;
}

/** Named leases: at most one holder at a time across the nodes of one database (`gc`). */
export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}

/** A resumable upload under way (engine/uploads.ts): nothing of it is visible before completion. */
export interface UploadSessionsTable {
  id: string;
  workspace_id: string;
  path: string;
  principal_id: string;
  key_id: string | null;
  /** Declared size: the upload completes when `received` reaches it. */
  size: number;
  /** Expected SHA-256 (lowercase hex), checked at completion; null when not declared. */
  sha256: string | null;
  /** Bytes received so far, in order (the tus `Upload-Offset`). */
  received: number;
  /** JSON of the write's options (ifMatch, ifNoneMatch, message, lockToken, session). */
  options: string;
  created_at: number;
  expires_at: number;
}

/**
 * The bytes of an upload, one row per stored piece, held in the BlobStore under their own hash
 * until completion: live content for garbage collection while their session exists.
 */
export interface UploadPartsTable {
  upload_id: string;
  workspace_id: string;
  /** Where the piece starts in the file. */
  start: number;
  size: number;
  hash: string;
  chunk_size: number;
  chunks: Uint8Array;
}

/** Names for seqs of a workspace: one state of all its files (engine/snapshots.ts). */
export interface SnapshotsTable {
  workspace_id: string;
  name: string;
  seq: number;
  created_by: string;
  created_at: number;
  message: string | null;
}

/**
 * Where a forked workspace came from (engine/fork.ts, 0015): its source and the fork point, and
 * the base its next merge compares against — both sides' seqs of the last state they shared.
 */
export interface ForksTable {
  /** The fork. */
  workspace_id: string;
  source_id: string;
  /** The source's name at fork time, for display once it is renamed or deleted. */
  source_name: string;
  /** The source's seq the fork was made at; the fork's seqs continue from it. */
  seq: number;
  /** The last state both share: the source's seq … */
  base_source_seq: number;
  /** … and the fork's seq of that same state (after a merge back: the fork's head then). */
  base_fork_seq: number;
  created_by: string;
  created_at: number;
}

/** Single-use signed transfer URLs that were used, kept until they expire. */
export interface UsedTransferTokensTable {
  id: string;
  expires_at: number;
}

export interface Database {
  meta: MetaTable;
  workspaces: WorkspacesTable;
  entries: EntriesTable;
  versions: VersionsTable;
  workspace_usage: WorkspaceUsageTable;
  blobs: BlobsTable;
  principals: PrincipalsTable;
  api_keys: ApiKeysTable;
  members: MembersTable;
  invitations: InvitationsTable;
  locks: LocksTable;
  transfers: TransfersTable;
  audit: AuditTable;
  passages: PassagesTable;
  search_state: SearchStateTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  rate_windows: RateWindowsTable;
  upload_sessions: UploadSessionsTable;
  upload_parts: UploadPartsTable;
  used_transfer_tokens: UsedTransferTokensTable;
  gc_blobs: GcBlobsTable;
  leases: LeasesTable;
  snapshots: SnapshotsTable;
  web_login_links: WebLoginLinksTable;
  web_sessions: WebSessionsTable;
  comments: CommentsTable;
  share_links: ShareLinksTable;
  forks: ForksTable;
}
