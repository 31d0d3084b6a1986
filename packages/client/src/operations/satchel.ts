/**
 * The Satchel interface: everything a caller can do with workspaces. Implemented by the engine
 * (`openSatchel`, engine/satchel-engine.ts) and, over HTTP, by `RemoteSatchel`; every frontend takes either.
 *
 * Paths are validated by core (`normalizePath`): INVALID_PATH. Unknown workspaces, files and
 * versions: NOT_FOUND. Options are validated against the schemas in `schemas.ts`: INVALID_INPUT.
 * A call that fails writes nothing.
 */
import type { Readable } from 'node:stream';
import type { BatchError, ByteRange, FileInfo } from '../schemas/index.js';
import type { OperationMethods } from './index.js';

/** File content: text (UTF-8), bytes, or a stream of bytes of any length (consumed once). */
export type Content = string | Uint8Array | AsyncIterable<Uint8Array | string>;

export interface FileStream {
  readonly info: FileInfo;
  /** The requested bytes [range.start, range.end); each piece is verified before it is emitted. */
  readonly body: Readable;
  readonly range: Required<ByteRange>;
  /**
   * The same bytes in one verified buffer, when the engine had them whole in memory (small files
   * stored inline): a frontend can send them without a stream. Use either this or `body`.
   */
  readonly bytes?: Uint8Array;
}

export interface BatchFile {
  readonly path: string;
  readonly content: string | Uint8Array;
  readonly ifMatch?: number;
  readonly ifNoneMatch?: '*';
}

/**
 * One file of a streamed upload (`uploadFiles`). With `content`, the bytes; without, the file is
 * written by `hash`, content a workspace the caller may read holds (ask with `haveContent`).
 */
export interface UploadEntry {
  readonly path: string;
  /** The bytes, consumed once, before the next entry is read. */
  readonly content?: Uint8Array | AsyncIterable<Uint8Array>;
  /** Bytes `content` holds: checked, so a file cut short is refused, never written. */
  readonly size?: number;
  /** SHA-256 of the content: checked against what arrives; the content itself without `content`. */
  readonly hash?: string;
  readonly ifMatch?: number;
  readonly ifNoneMatch?: '*';
}

/** One file of a streamed download (`downloadFiles`): its info and bytes, or why not. */
export type DownloadItem =
  | {
      readonly path: string;
      readonly info: FileInfo;
      /** Verified bytes; read it to the end before asking for the next item. */
      readonly body: AsyncIterable<Uint8Array>;
    }
  | { readonly path: string; readonly error: BatchError };

/**
 * Every operation of the table (operations/index.ts, where each is documented), and the two
 * methods that are not calls: the audit export, a stream of JSON lines (admins), and `close`.
 */
export interface Satchel extends OperationMethods {
  /** The whole audit log as JSON lines (admins). */
  exportAudit(): AsyncIterable<string>;
  close(): Promise<void>;
}
