/**
 * The part of the CodeSandbox SDK's sandbox file system that sync uses (codesandbox-tree.ts),
 * and what its values mean: the unit of mtimes, the cap on a file moved whole.
 */
import { SatchelError } from '@satchel/client/errors.js';

/** `fs.stat` of the SDK (FSStatResult). */
export interface CsbStat {
  readonly type: 'file' | 'directory';
  readonly isSymlink: boolean;
  readonly size: number;
  readonly mtime: number;
}

/** An entry of `fs.readdir` (ReaddirEntry). */
export interface CsbDirEntry {
  readonly name: string;
  readonly type: 'file' | 'directory';
  readonly isSymlink: boolean;
}

export interface CsbWatchEvent {
  readonly paths: string[];
  readonly type: 'add' | 'change' | 'remove';
}

export interface CsbWatcher {
  dispose(): void;
  onEvent(listener: (event: CsbWatchEvent) => void): { dispose(): void };
}

/**
 * The part of the SDK's `client.fs` (class FileSystem) sync uses, declared here because the
 * SDK's .d.ts files do not resolve under NodeNext; codesandbox-sdk.check.ts proves
 * with the SDK's own types (tsconfig.sdk.json) that the real client satisfies it.
 */
export interface CsbFileSystem {
  readdir(path: string): Promise<CsbDirEntry[]>;
  readFile(path: string): Promise<Uint8Array>;
  writeFile(
    path: string,
    content: Uint8Array,
    opts?: { create?: boolean; overwrite?: boolean },
  ): Promise<void>;
  stat(path: string): Promise<CsbStat>;
  rename(from: string, to: string, overwrite?: boolean): Promise<void>;
  remove(path: string, recursive?: boolean): Promise<void>;
  mkdir(path: string, recursive?: boolean): Promise<void>;
  watch(
    path: string,
    options?: { readonly recursive?: boolean; readonly excludes?: readonly string[] },
  ): Promise<CsbWatcher>;
  /**
   * Zips `files` (paths relative to the client's workspacePath), writes the zip to the VM's
   * /tmp and runs `unzip -o` on it in a shell (SDK 2.x): see codesandbox-write-group.ts.
   */
  batchWrite?(files: Array<{ path: string; content: Uint8Array }>): Promise<void>;
}

/**
 * The client's connection state (`client.onStateChange`): CONNECTED, DISCONNECTED (the SDK
 * reconnects by itself), HIBERNATED, …
 */
export interface CsbConnection {
  onStateChange(listener: (state: string) => void): { dispose(): void };
}

/** Default cap on one file: the SDK moves each file whole, in memory, in one message. */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

/** The bytes of `content`, whole; TOO_LARGE as soon as they pass `max`. */
export async function collect(content: AsyncIterable<Uint8Array>, max: number, path: string) {
  const pieces: Buffer[] = [];
  let size = 0;
  for await (const piece of content) {
    size += piece.byteLength;
    if (size > max) throw tooLarge(path, size, max);
    pieces.push(Buffer.from(piece));
  }
  return Buffer.concat(pieces);
}

/** TOO_LARGE for `path`, naming the cap and why it exists. */
export function tooLarge(path: string, size: number, max: number): SatchelError {
  return new SatchelError(
    'TOO_LARGE',
    `${path} is ${size} bytes or more; files moved to or from a CodeSandbox sandbox are limited to ${max} bytes (the SDK moves each file whole, in memory)`,
    { path, size, limit: max },
  );
}

/**
 * The VM's mtime in ms. The unit is not documented; a value below 1e11 is read as seconds
 * (1e11 ms is March 1973, 1e11 s the year 5138), so either unit gives ms.
 */
export function mtimeMs(mtime: number): number {
  return mtime < 1e11 ? mtime * 1000 : mtime;
}
