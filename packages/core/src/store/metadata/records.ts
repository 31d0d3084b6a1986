/**
 * Records: the rows of the metadata store as the code outside `store/` sees them, in camelCase
 * and with numbers as numbers. The mapping from the snake_case columns of `tables.ts` lives only
 * beside this file: in `file-tree-rows.ts` for the file tree, in the area modules
 * (`*-queries.ts`) for the rest.
 */
import type { Role } from '@satchel/client/schemas/access.js';

/** A workspace. Times are epoch milliseconds. */
export interface WorkspaceRecord {
  readonly id: string;
  readonly name: string;
  /** Newest seq handed out; the next mutation gets seq + 1. */
  readonly seq: number;
  readonly createdAt: number;
  /** The JSON of `WorkspaceSettings`, with any unknown keys kept. */
  readonly settings: string;
  /** Newest fencing token handed out to a lock in this workspace. */
  readonly fence: number;
}

/** Where a version came from: the path and seq a move (or copy) took it from. */
export interface VersionOrigin {
  readonly path: string;
  readonly seq: number;
}

/** The current state of one live path: a file, or a directory (explicit or implied by a file). */
export interface EntryRecord {
  readonly workspaceId: string;
  readonly path: string;
  /** The path of the directory holding it ('/' for the top level). */
  readonly parent: string;
  readonly type: 'file' | 'directory';
  /** The seq of the version this entry is the head of. */
  readonly seq: number;
  readonly size: number;
  /** The content's SHA-256; null for a directory. */
  readonly hash: string | null;
  readonly contentType: string | null;
  readonly author: string;
  readonly session: string | null;
  readonly modifiedAt: number;
}

/** One version of one path, tombstones (`deleted`) included; immutable once written. */
export interface VersionRecord {
  readonly workspaceId: string;
  readonly path: string;
  readonly seq: number;
  /** The `VersionOp` that wrote it. */
  readonly op: string;
  readonly type: 'file' | 'directory';
  readonly deleted: boolean;
  readonly hash: string | null;
  readonly size: number;
  readonly contentType: string | null;
  readonly author: string;
  readonly session: string | null;
  readonly message: string | null;
  readonly origin: VersionOrigin | null;
  readonly createdAt: number;
}

/**
 * Registered content: small content inline (`data`), large content in the BlobStore with the
 * SHA-256 of each `chunkSize` piece concatenated in `chunks`.
 */
export interface BlobRecord {
  readonly hash: string;
  readonly size: number;
  readonly location: 'inline' | 'store';
  readonly data: Uint8Array | null;
  readonly chunkSize: number | null;
  readonly chunks: Uint8Array | null;
  readonly createdAt: number;
}

/** A lock, in whatever state (live, expired or released). Times are epoch milliseconds. */
export interface LockRecord {
  readonly id: string;
  readonly workspaceId: string;
  readonly path: string;
  readonly scope: 'file' | 'tree';
  readonly mode: 'exclusive' | 'shared';
  readonly token: number;
  readonly holder: string;
  readonly session: string | null;
  readonly acquiredAt: number;
  readonly expiresAt: number;
  readonly releasedAt: number | null;
  readonly releasedBy: string | null;
}

/** A webhook subscription. `events` are the subscribed version ops; `cursor` the newest seq queued. */
export interface WebhookRecord {
  readonly id: string;
  readonly workspaceId: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly pathGlob: string | null;
  readonly description: string | null;
  readonly secretCiphertext: string;
  readonly enabled: boolean;
  readonly disabledReason: string | null;
  readonly cursor: number;
  readonly createdAt: number;
  readonly createdBy: string;
}

/** What an update may change of a subscription. */
export type WebhookChange = Partial<
  Pick<
    WebhookRecord,
    'url' | 'events' | 'pathGlob' | 'description' | 'enabled' | 'disabledReason' | 'cursor'
  >
>;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dead';

/** One event queued for (or delivered to) one subscription; `payload` is the exact body sent. */
export interface DeliveryRecord {
  readonly id: string;
  readonly webhookId: string;
  readonly workspaceId: string;
  readonly eventSeq: number;
  readonly eventPath: string;
  readonly eventType: string;
  readonly payload: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly nextAttemptAt: number | null;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
  readonly createdAt: number;
  readonly deliveredAt: number | null;
}

/** Where a delivery stands after an attempt. */
export type DeliveryState = Pick<
  DeliveryRecord,
  'status' | 'nextAttemptAt' | 'lastStatus' | 'lastError' | 'deliveredAt'
>;

/** One attempt of a delivery. */
export interface AttemptRecord {
  readonly deliveryId: string;
  readonly workspaceId: string;
  readonly attempt: number;
  readonly at: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

/** How far a workspace's search index follows its change feed. */
export interface SearchStateRecord {
  readonly workspaceId: string;
  /** Every change up to this seq is reflected in the passages. */
  readonly indexedSeq: number;
  /** While rebuilding: the head seq the rebuild started at; null otherwise. */
  readonly rebuildSeq: number | null;
  /** While rebuilding: files up to this path are done ('' before the first). */
  readonly rebuildAfter: string | null;
  /** The last failure of the embedding provider, cleared by the next success. */
  readonly vectorError: string | null;
}

/** A passage of a text file to index: lines `lineStart`-`lineEnd` of version `seq` of `path`. */
export interface NewPassage {
  readonly workspaceId: string;
  readonly path: string;
  readonly seq: number;
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly text: string;
}

/** An indexed passage; `vector` (unit-length float32, little-endian) once embedded. */
export interface PassageRecord extends NewPassage {
  readonly id: number;
  readonly vector: Uint8Array | null;
}

/** A user or agent that keys act for. */
export interface PrincipalRecord {
  readonly id: string;
  readonly name: string;
  readonly kind: 'user' | 'agent';
  readonly admin: boolean;
  readonly createdAt: number;
}

/**
 * An API key (only the SHA-256 of its secret). `parentId` is the key that minted it (null for a
 * root key); null narrowing fields mean "not narrowed".
 */
export interface KeyRecord {
  readonly id: string;
  readonly principalId: string;
  readonly parentId: string | null;
  readonly secretHash: string;
  readonly label: string | null;
  readonly workspaces: readonly string[] | null;
  readonly roleCeiling: Role | null;
  readonly pathPrefixes: readonly string[] | null;
  readonly readOnly: boolean;
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
  readonly createdAt: number;
}

/** A key with its distance from the key a chain query started at (0 = that key itself). */
export interface KeyChainLink extends KeyRecord {
  readonly depth: number;
}

/** A principal's role in a workspace. */
export interface MemberRecord {
  readonly workspaceId: string;
  readonly principalId: string;
  readonly role: Role;
  readonly createdAt: number;
}

/** A pending invitation to join a workspace (invitation-queries.ts). */
export interface InvitationRecord {
  readonly id: string;
  readonly workspaceId: string;
  /** The name the owner invited, as given. */
  readonly principalName: string;
  /** The invited principal; null when the name was nobody's (never acceptable). */
  readonly principalId: string | null;
  readonly role: Role;
  /** Principal id of the owner who invited. */
  readonly invitedBy: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** An invitation as it is read: with its workspace's name and its inviter's. */
export interface InvitationView extends InvitationRecord {
  readonly workspaceName: string;
  /** The inviter's name (its id, should the principal be gone). */
  readonly inviterName: string;
}

/** An offer to hand a workspace's ownership over, redeemed with a code (only its hash kept). */
export interface TransferRecord {
  readonly id: string;
  readonly workspaceId: string;
  readonly codeHash: string;
  readonly offeredBy: string;
  readonly toPrincipal: string | null;
  readonly previousOwnerRole: 'editor' | 'none';
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly acceptedAt: number | null;
  readonly acceptedBy: string | null;
  readonly cancelledAt: number | null;
}

/**
 * An entry of the audit log's hash chain. Mutable on purpose: the appender fills in `hash`
 * after building the entry (audit/audit-chain.ts, the hot path of every call).
 */
export interface AuditRecord {
  idx: number;
  time: number;
  actor: string;
  session: string | null;
  action: string;
  /** The workspace's name at the time of the call. */
  workspace: string | null;
  /** The id of the workspace the call reached; null outside any workspace (see tables.ts). */
  workspaceId: string | null;
  path: string | null;
  seq: number | null;
  outcome: 'ok' | 'refused' | 'error';
  code: string | null;
  prevHash: string;
  hash: string;
}

/** A resumable upload session (upload_sessions). Times are epoch milliseconds. */
export interface UploadRecord {
  readonly id: string;
  readonly workspaceId: string;
  readonly path: string;
  readonly principalId: string;
  readonly keyId: string | null;
  readonly size: number;
  readonly sha256: string | null;
  /** Bytes received so far, in order. */
  readonly received: number;
  /** JSON of the write options applied at completion. */
  readonly options: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** One stored piece of an upload: bytes [start, start + size) of the file, in the BlobStore. */
export interface UploadPartRecord {
  readonly uploadId: string;
  readonly workspaceId: string;
  readonly start: number;
  readonly size: number;
  readonly hash: string;
  readonly chunkSize: number;
  readonly chunks: Uint8Array;
}

/** A name for a seq of a workspace (past-queries.ts). */
export interface SnapshotRecord {
  readonly workspaceId: string;
  readonly name: string;
  readonly seq: number;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly message: string | null;
}

/** A one-time sign-in link, known by the hash of its token (web-session-queries.ts). */
export interface LoginLinkRecord {
  readonly tokenHash: string;
  readonly principalId: string;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** A browser session of the web app (web-session-queries.ts). */
export interface WebSessionRecord {
  readonly id: string;
  readonly secretHash: string;
  readonly principalId: string;
  readonly userAgent: string | null;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly expiresAt: number;
  readonly revokedAt: number | null;
}

/** One review comment (comment-queries.ts). Times are epoch milliseconds. */
export interface CommentRecord {
  readonly id: string;
  readonly workspaceId: string;
  readonly threadId: string;
  readonly parentId: string | null;
  readonly path: string;
  /** The anchor, on a thread's first comment; null on replies. */
  readonly anchor: {
    readonly version: number;
    readonly startLine: number;
    readonly endLine: number;
  } | null;
  readonly body: string;
  readonly author: string;
  readonly session: string | null;
  readonly createdAt: number;
  readonly resolvedAt: number | null;
  readonly resolvedBy: string | null;
}

/** A share link (share-link-queries.ts); only the token's hash is kept. */
export interface ShareLinkRecord {
  readonly id: string;
  readonly workspaceId: string;
  readonly path: string;
  readonly kind: 'file' | 'directory';
  readonly tokenHash: string;
  readonly passwordHash: string | null;
  readonly expiresAt: number;
  readonly maxDownloads: number | null;
  readonly downloads: number;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
  readonly revokedBy: string | null;
}

/** Where a fork came from, and the base of its next merge (fork-queries.ts). */
export interface ForkRecord {
  readonly workspaceId: string;
  readonly sourceId: string;
  readonly sourceName: string;
  readonly seq: number;
  readonly baseSourceSeq: number;
  readonly baseForkSeq: number;
  readonly createdBy: string;
  readonly createdAt: number;
}
