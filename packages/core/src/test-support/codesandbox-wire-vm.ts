/**
 * The VM side of the CodeSandbox wire stand-in (codesandbox-wire.ts): its file system calls on
 * the directory playing the VM's `/`, and shells that behave like the PTY the SDK gets.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as nodeFs from 'node:fs/promises';
import { join } from 'node:path';
import ignore from 'ignore';

const RAWFS_ERROR = 102;
const ERRNO: Readonly<Record<string, number>> = {
  ENOENT: 2,
  EEXIST: 17,
  ENOTDIR: 20,
  EISDIR: 21,
  ENOTEMPTY: 39,
};

/** What to do to the next matching call (`inject`). */
export type Fault =
  /** Never answer (the caller's timeout decides). */
  | { kind: 'hang' }
  /** Close the connection instead of answering. */
  | { kind: 'disconnect' }
  /** Answer with an error without errno ("null: <message>" in the SDK). */
  | { kind: 'error'; message: string }
  /** REST only: answer with this status. */
  | { kind: 'status'; status: 401 | 403 | 429 | 503 };

export interface WireOptions {
  /** The API key the REST calls must carry. */
  readonly apiKey?: string;
  /** Delay before every answer, ms. */
  readonly latencyMs?: number;
  /** Whether fs/rename replaces an existing target (unknown on the real VM). Default true. */
  readonly renameClobbers?: boolean;
  /** Whether fs/mkdir of an existing folder fails with EEXIST. Default true. */
  readonly mkdirExistingFails?: boolean;
  /** Emit ANSI colour codes around shell output, as a PTY with a colour prompt might. */
  readonly ansi?: boolean;
  /** Setup steps after CLEAN and FORK boots take this long, ms. Default 0. */
  readonly setupMs?: number;
}

/** Answers an `fs/*` call; `abs(key)` is the local path of parameter `key` (default `path`). */
export async function vmFs(
  method: string,
  p: Record<string, unknown>,
  abs: (key?: string) => string,
  options: { readonly renameClobbers?: boolean; readonly mkdirExistingFails?: boolean },
): Promise<unknown> {
  switch (method) {
    case 'fs/readFile':
      return { content: new Uint8Array(await nodeFs.readFile(abs())) };
    case 'fs/readdir': {
      const entries = await nodeFs.readdir(abs(), { withFileTypes: true });
      return {
        entries: entries.map((e) => ({
          name: e.name,
          type: e.isDirectory() ? 1 : 0,
          isSymlink: e.isSymbolicLink(),
        })),
      };
    }
    case 'fs/writeFile':
      await nodeFs.writeFile(abs(), p.content as Uint8Array, {
        flag: p.overwrite === false ? 'wx' : 'w',
      });
      return {};
    case 'fs/stat': {
      const st = await nodeFs.lstat(abs());
      return {
        type: st.isDirectory() ? 1 : 0,
        isSymlink: st.isSymbolicLink(),
        size: st.size,
        mtime: st.mtimeMs,
        ctime: st.ctimeMs,
        atime: st.atimeMs,
      };
    }
    case 'fs/rename': {
      // The SDK never sends `overwrite`: the VM's own default decides.
      const clobbers = options.renameClobbers ?? true;
      if (!clobbers && (await nodeFs.lstat(abs('to')).catch(() => null))) {
        throw Object.assign(new Error('file already exists'), { code: 'EEXIST' });
      }
      await nodeFs.rename(abs('from'), abs('to'));
      return {};
    }
    case 'fs/remove': {
      const target = abs();
      if (!p.recursive && (await nodeFs.lstat(target)).isDirectory()) await nodeFs.rmdir(target);
      else await nodeFs.rm(target, { recursive: Boolean(p.recursive) });
      return {};
    }
    case 'fs/mkdir': {
      const existing = await nodeFs.lstat(abs()).catch(() => null);
      if (existing?.isDirectory() && options.mkdirExistingFails === false) return {};
      await nodeFs.mkdir(abs(), { recursive: Boolean(p.recursive) });
      return {};
    }
    default:
      throw new Error(`method ${method} is not part of the stand-in`);
  }
}

/**
 * Runs `command` with `bash -c` in `root` (the VM's `/`), stdout and stderr merged and LF
 * written as CRLF, as a PTY does; stdin open and never written. The SDK prefixes `cd <cwd> && `
 * with a VM path, mapped here to where it lies.
 */
export function spawnPtyShell(
  root: string,
  command: string,
  cwd: string,
  ansi: boolean,
  onOut: (out: string) => void,
): ChildProcess {
  const line = command.replace(
    /^cd (\/\S*) && /,
    (_, dir: string) => `cd '${join(root, dir)}' && `,
  );
  // The SDK sources $HOME/.private/.env; HOME is the VM's root here.
  const child = spawn('bash', ['-c', line], {
    cwd: join(root, cwd),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, TERM: 'xterm' },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const pty = (chunk: Buffer) => {
    const out = chunk.toString('utf8').replace(/\r?\n/g, '\r\n');
    onOut(ansi ? `\x1b[32m${out}\x1b[0m` : out);
  };
  child.stdout?.on('data', pty);
  child.stderr?.on('data', pty);
  return child;
}

/** Kills a shell and everything it started. */
export function kill(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** What a restore from the archive leaves of `tree`: gitignored files gone, every mtime new. */
export async function restoreFromGit(tree: string): Promise<void> {
  const gitignore = await nodeFs.readFile(join(tree, '.gitignore'), 'utf8').catch(() => '');
  const rules = ignore().add(gitignore);
  const later = new Date(Date.now() + 60_000);
  const walk = async (rel: string): Promise<void> => {
    for (const e of await nodeFs.readdir(join(tree, rel), { withFileTypes: true })) {
      const path = rel === '' ? e.name : `${rel}/${e.name}`;
      const dir = e.isDirectory();
      if (rules.ignores(dir ? `${path}/` : path)) {
        await nodeFs.rm(join(tree, path), { recursive: true, force: true });
      } else if (dir) await walk(path);
      else await nodeFs.utimes(join(tree, path), later, later);
    }
  };
  await walk('');
}

export interface WatchEvent {
  paths: string[];
  type: 'add' | 'change' | 'remove';
}

/**
 * Watches `root` (the VM path `path`) and hands over its events in batches every 20 ms, paths
 * absolute in the VM. Returns what stops it.
 */
export function watchBatches(
  root: string,
  path: string,
  send: (events: WatchEvent[]) => void,
): () => void {
  let pending: WatchEvent[] = [];
  const stop = new AbortController();
  const watcher = nodeFs.watch(root, { recursive: true, signal: stop.signal });
  void (async () => {
    try {
      for await (const event of watcher) {
        if (event.filename === null) continue;
        pending.push({ paths: [`${path}/${event.filename}`], type: 'change' });
        setTimeout(() => {
          if (pending.length === 0) return;
          send(pending);
          pending = [];
        }, 20);
      }
    } catch {
      // closed
    }
  })();
  return () => stop.abort();
}

/** A failed call as the pitcher answers it: fs errors as code 102 with their errno. */
export function wireError(error: unknown): { code: number; message: string; data: unknown } {
  const errno = ERRNO[(error as NodeJS.ErrnoException).code ?? ''] ?? null;
  return {
    code: errno === null ? 1 : RAWFS_ERROR,
    message: (error as Error).message,
    data: { errno },
  };
}

/** `setup/get`: one install step, finished or under way. */
export function setupProgress(done: boolean) {
  return {
    state: done ? 'FINISHED' : 'IN_PROGRESS',
    steps: [
      { name: 'install', command: 'true', shellId: null, finishStatus: done ? 'SUCCEEDED' : null },
    ],
    currentStepIndex: 0,
  };
}
