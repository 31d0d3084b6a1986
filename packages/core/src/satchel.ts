/**
 * The Satchel interface: everything a caller can do with workspaces. Implemented by the engine
 * (`openSatchel`) and, over HTTP, by `RemoteSatchel`; every frontend takes either.
 *
 * Paths are validated by core (`normalizePath`): INVALID_PATH. Unknown workspaces, files and
 * versions: NOT_FOUND. Options are validated against the schemas in `schemas.ts`: INVALID_INPUT.
 * A call that fails writes nothing.
 */
import type { Readable } from 'node:stream';
import type {
  AppendOptions,
  ByteRange,
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
  /** Writes many small files in one transaction: all of them or none. */
  writeFiles(
    workspace: string,
    files: readonly BatchFile[],
    options?: CallOptions,
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
  mkdir(workspace: string, path: string, options?: CallOptions): Promise<FileInfo>;
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

  /** Re-hashes all content and checks every reference (admin). */
  fsck(): Promise<FsckReport>;
  close(): Promise<void>;
}
