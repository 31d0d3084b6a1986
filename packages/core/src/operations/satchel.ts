/**
 * The Satchel interface: everything a caller can do with workspaces. Implemented by the engine
 * (`openSatchel`) and, over HTTP, by `RemoteSatchel`; every frontend takes either.
 *
 * Paths are validated by core (`normalizePath`): INVALID_PATH. Unknown workspaces, files and
 * versions: NOT_FOUND. Options are validated against the schemas in `schemas.ts`: INVALID_INPUT.
 * A call that fails writes nothing.
 */
import type { Readable } from 'node:stream';
import type { Actor } from '../kernel/actor.js';
import type { ByteRange, FileInfo } from '../schemas/index.js';
import type { WebhookDispatcher, WebhookDispatchOptions } from '../webhooks/dispatcher.js';
import type { OperationMethods } from './index.js';

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

/**
 * Every operation of the table (operations/index.ts, where each is documented), and the two
 * methods that are not calls: the audit export, a stream of JSON lines (admins), and `close`.
 */
export interface Satchel extends OperationMethods {
  /** The whole audit log as JSON lines (admins). */
  exportAudit(): AsyncIterable<string>;
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
