/** The part of the CodeSandbox SDK's sandbox file system that sync uses (codesandbox-tree.ts). */

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
 * SDK's .d.ts files do not resolve under NodeNext; test-support/codesandbox-stand-in.ts proves
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
}
