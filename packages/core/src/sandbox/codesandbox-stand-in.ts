/**
 * A local stand-in for CodeSandbox: implements the SDK's client interfaces (sandboxes, fs,
 * commands) over directories and child processes, so the `codesandbox` provider runs for real
 * in tests; failed commands reject with the SDK's own CommandError. codesandbox-sdk.check.ts
 * proves with the SDK's own types (`tsc -p tsconfig.sdk.json`) that these classes implement the
 * real FileSystem and SandboxCommands methods, and that the real SDK fits the provider.
 */
import { exec } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { watch } from 'chokidar';
import type { CsbBootupType, CsbClient, CsbSandbox, CsbSandboxes } from './codesandbox.js';
import type { CsbFileSystem, CsbStat } from './codesandbox-tree.js';

/** The SDK's CommandError class (its .d.ts files do not resolve under NodeNext; see the check). */
export type CommandErrorClass = new (message: string, exitCode: number, output: string) => Error;
const { CommandError } = (await import('@codesandbox/sdk')) as unknown as {
  CommandError: CommandErrorClass;
};

/** `client.fs` over a local directory that plays the VM's root. */
export class StandInFs implements CsbFileSystem {
  constructor(private readonly vmRoot: string) {}

  private abs(path: string): string {
    return join(this.vmRoot, path);
  }

  async readdir(path: string) {
    const entries = await readdir(this.abs(path), { withFileTypes: true });
    return entries.map((e) => ({
      name: e.name,
      type: e.isDirectory() ? ('directory' as const) : ('file' as const),
      isSymlink: e.isSymbolicLink(),
    }));
  }
  async readFile(path: string): Promise<Uint8Array> {
    return new Uint8Array(await readFile(this.abs(path)));
  }
  async writeFile(
    path: string,
    content: Uint8Array,
    opts?: { create?: boolean; overwrite?: boolean },
  ) {
    await writeFile(this.abs(path), content, { flag: opts?.overwrite === false ? 'wx' : 'w' });
  }
  async stat(path: string): Promise<CsbStat & { ctime: number; atime: number }> {
    const st = await lstat(this.abs(path));
    return {
      type: st.isDirectory() ? 'directory' : 'file',
      isSymlink: st.isSymbolicLink(),
      size: st.size,
      mtime: st.mtimeMs,
      ctime: st.ctimeMs,
      atime: st.atimeMs,
    };
  }
  async rename(from: string, to: string, overwrite?: boolean) {
    if (!overwrite && (await stat(this.abs(to)).catch(() => null))) throw new Error(`${to} exists`);
    await rename(this.abs(from), this.abs(to));
  }
  /**
   * Without `recursive`, a folder goes only when empty (POSIX remove(3)): what CodeSandboxTree
   * assumes when it removes the folders a deleted file left empty. The SDK does not document it.
   */
  async remove(path: string, recursive?: boolean) {
    const target = this.abs(path);
    if (!recursive && (await lstat(target)).isDirectory()) await rmdir(target);
    else await rm(target, { recursive: recursive ?? false });
  }
  async mkdir(path: string, recursive?: boolean) {
    await mkdir(this.abs(path), { recursive: recursive ?? false });
  }
  async watch(
    path: string,
    options?: { readonly recursive?: boolean; readonly excludes?: readonly string[] },
  ) {
    const root = this.abs(path);
    const watcher = watch(root, { ignoreInitial: true, depth: options?.recursive ? undefined : 0 });
    const listeners = new Set<
      (e: { paths: string[]; type: 'add' | 'change' | 'remove' }) => void
    >();
    const fire = (type: 'add' | 'change' | 'remove') => (file: string) => {
      const vmPath = `/${file.slice(this.vmRoot.length).split('\\').join('/').replace(/^\/+/, '')}`;
      for (const listener of listeners) listener({ paths: [vmPath], type });
    };
    watcher.on('add', fire('add')).on('change', fire('change')).on('unlink', fire('remove'));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    return {
      dispose: () => void watcher.close(),
      onEvent: (listener: (e: { paths: string[]; type: 'add' | 'change' | 'remove' }) => void) => {
        listeners.add(listener);
        return { dispose: () => void listeners.delete(listener) };
      },
    };
  }
}

/** `client.commands` as `sh -c` in the VM root; failures are the SDK's own CommandError. */
export class StandInCommands implements Pick<CsbClient['commands'], 'run'> {
  constructor(private readonly vmRoot: string) {}

  run(
    command: string | string[],
    opts?: { cwd?: string; env?: Record<string, string> },
  ): Promise<string> {
    const line = Array.isArray(command) ? command.join(' && ') : command;
    const cwd = opts?.cwd === undefined ? this.vmRoot : join(this.vmRoot, opts.cwd);
    return new Promise((resolve, reject) => {
      exec(line, { cwd, env: { ...process.env, ...opts?.env } }, (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        if (error)
          reject(
            new CommandError(
              `Command failed with exit code ${error.code}`,
              Number(error.code ?? 1),
              output,
            ),
          );
        else resolve(output);
      });
    });
  }
}

const WORKSPACE_PATH = '/project/workspace';

/** The SDK's error for an API answer 404: a plain Error, "Failed to <verb> VM <id>: Sandbox not found". */
function notFound(verb: 'start' | 'hibernate' | 'shutdown', id: string): Error {
  return new Error(`Failed to ${verb} VM ${id}: Sandbox not found`);
}

/** `sdk.sandboxes`: each sandbox a directory; `expireSnapshot` makes the next resume CLEAN with an empty tree. */
export class StandInSandboxes implements CsbSandboxes {
  readonly calls: string[] = [];
  private readonly status = new Map<string, 'running' | 'hibernated' | 'shutdown' | 'expired'>();

  constructor(private readonly root: string) {}

  vmRoot(id: string): string {
    return join(this.root, id);
  }

  private sandbox(id: string, bootupType: CsbBootupType): CsbSandbox {
    const vmRoot = this.vmRoot(id);
    const client: CsbClient = {
      fs: new StandInFs(vmRoot),
      commands: new StandInCommands(vmRoot),
      workspacePath: WORKSPACE_PATH,
      disconnect: async () => undefined,
    };
    return { id, bootupType, connect: async () => client };
  }

  async create(opts?: { id?: string }): Promise<CsbSandbox> {
    this.calls.push(`create ${opts?.id ?? ''}`.trim());
    const id = randomBytes(3).toString('hex');
    const tree = join(this.vmRoot(id), WORKSPACE_PATH);
    if (opts?.id !== undefined)
      await cp(this.vmRoot(opts.id), this.vmRoot(id), { recursive: true });
    await mkdir(tree, { recursive: true });
    this.status.set(id, 'running');
    return this.sandbox(id, 'FORK');
  }

  async resume(id: string): Promise<CsbSandbox> {
    this.calls.push(`resume ${id}`);
    const before = this.status.get(id);
    if (before === undefined) throw notFound('start', id);
    this.status.set(id, 'running');
    const boot: CsbBootupType =
      before === 'running' ? 'RUNNING' : before === 'hibernated' ? 'RESUME' : 'CLEAN';
    return this.sandbox(id, boot);
  }

  async hibernate(id: string): Promise<void> {
    this.calls.push(`hibernate ${id}`);
    if (!this.status.has(id)) throw notFound('hibernate', id);
    this.status.set(id, 'hibernated');
  }

  async shutdown(id: string): Promise<void> {
    this.calls.push(`shutdown ${id}`);
    if (!this.status.has(id)) throw notFound('shutdown', id);
    this.status.set(id, 'shutdown');
  }

  /** The snapshot is gone: the VM boots CLEAN from its template with an empty working tree. */
  async expireSnapshot(id: string): Promise<void> {
    const tree = join(this.vmRoot(id), WORKSPACE_PATH);
    await rm(tree, { recursive: true, force: true });
    await mkdir(tree, { recursive: true });
    this.status.set(id, 'expired');
  }
}
