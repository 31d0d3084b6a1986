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
  /** Delay before every answer, ms; or per pitcher method (`fs/stat`…, `rest` for REST calls). */
  readonly latencyMs?: number | Readonly<Record<string, number>>;
  /** Whether fs/rename replaces an existing target (unknown on the real VM). Default true. */
  readonly renameClobbers?: boolean;
  /** Whether fs/mkdir of an existing folder fails with EEXIST. Default true. */
  readonly mkdirExistingFails?: boolean;
  /** Emit ANSI colour codes around shell output, as a PTY with a colour prompt might. */
  readonly ansi?: boolean;
  /** Setup steps after CLEAN and FORK boots take this long, ms. Default 0. */
  readonly setupMs?: number;
  /** A file (tree path) the setup steps write when they finish, as an install would. */
  readonly setupFile?: string;
  /** Unknown on the real VM: whether `fs/stat` follows a link (type of the target). Default false. */
  readonly statFollowsLinks?: boolean;
  /** Unknown on the real VM: the unit of `mtime` in `fs/stat`. Default `ms`. */
  readonly mtimeUnit?: 'ms' | 's';
  /**
   * Unknown on the real VM: how watch events name paths — absolute (default), relative to the
   * watched folder, or under `/project/sandbox` (another name of `/project/workspace`).
   */
  readonly watchPaths?: 'absolute' | 'relative' | 'sandbox';
  /** Unknown on the real VM: whether the watch honours `excludes`. Default true. */
  readonly watchExcludes?: boolean;
  /** Hibernate a sandbox nobody sent a message for this long, ms (keep-alives count). */
  readonly idleHibernateMs?: number;
}

/** Answers an `fs/*` call; `abs(key)` is the local path of parameter `key` (default `path`). */
export async function vmFs(
  method: string,
  p: Record<string, unknown>,
  abs: (key?: string) => string,
  options: WireOptions,
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
      const own = await nodeFs.lstat(abs());
      const st = own.isSymbolicLink() && options.statFollowsLinks ? await nodeFs.stat(abs()) : own;
      const unit = options.mtimeUnit === 's' ? 1000 : 1;
      return {
        type: st.isDirectory() ? 1 : 0,
        isSymlink: own.isSymbolicLink(),
        size: st.size,
        mtime: Math.floor(st.mtimeMs / unit),
        ctime: Math.floor(st.ctimeMs / unit),
        atime: Math.floor(st.atimeMs / unit),
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
 * written as CRLF, as a PTY does; stdin open and never written. The VM paths the SDK writes
 * into commands itself are mapped to where they lie: the `cd <cwd> && ` it prefixes, and the
 * zip of `fs.batchWrite` (`cd <workspace> && unzip -o /tmp/batch_write_<ms>.zip`), which runs
 * the real `unzip` here.
 */
export function spawnPtyShell(
  root: string,
  command: string,
  cwd: string,
  ansi: boolean,
  onOut: (out: string) => void,
): ChildProcess {
  const line = command
    .replace(/^cd (\/\S*) && /, (_, dir: string) => `cd '${join(root, dir)}' && `)
    .replace(/ unzip -o (\/\S+)$/, (_, zip: string) => ` unzip -o '${join(root, zip)}'`);
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

/** What `fs/watch` was asked for, and how the stand-in names paths in events. */
export interface WatchRequest {
  /** The watched folder on this machine. */
  readonly local: string;
  /** The watched folder in the VM. */
  readonly path: string;
  readonly excludes: readonly string[];
  readonly options: WireOptions;
}

/** Whether `rel` matches one of the watch's `excludes` (`dir/**` patterns). */
function excluded(rel: string, excludes: readonly string[]): boolean {
  return excludes.some((pattern) => {
    const dir = pattern.replace(/\/\*\*$/, '');
    return rel === dir || rel.startsWith(`${dir}/`);
  });
}

/**
 * Watches a folder and hands over its events in batches every 20 ms, as the VM's agent does:
 * `add` (a path that appeared), `remove` (one that went), `change` (content), consecutive
 * events of one type merged into one naming several paths. Returns what stops it.
 */
export function watchBatches(
  request: WatchRequest,
  send: (events: WatchEvent[]) => void,
): () => void {
  const { local, path, excludes, options } = request;
  const name = (rel: string): string => {
    if (options.watchPaths === 'relative') return rel;
    if (options.watchPaths === 'sandbox') return `/project/sandbox/${rel}`;
    return `${path}/${rel}`;
  };
  let pending: WatchEvent[] = [];
  let timer: NodeJS.Timeout | null = null;
  const stop = new AbortController();
  const watcher = nodeFs.watch(local, { recursive: true, signal: stop.signal });
  const push = (type: WatchEvent['type'], rel: string): void => {
    const last = pending[pending.length - 1];
    if (last?.type === type) last.paths.push(name(rel));
    else pending.push({ type, paths: [name(rel)] });
    timer ??= setTimeout(() => {
      timer = null;
      const batch = pending;
      pending = [];
      if (batch.length > 0 && !stop.signal.aborted) send(batch);
    }, 20);
  };
  void (async () => {
    try {
      for await (const event of watcher) {
        const rel = event.filename;
        if (rel === null || (options.watchExcludes !== false && excluded(rel, excludes))) continue;
        if (event.eventType === 'change') push('change', rel);
        else {
          const there = await nodeFs.lstat(join(local, rel)).then(
            () => true,
            () => false,
          );
          push(there ? 'add' : 'remove', rel);
        }
      }
    } catch {
      // closed
    }
  })();
  return () => {
    stop.abort();
    if (timer !== null) clearTimeout(timer);
  };
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

/** What `POST /vm/:id/start` answers: how the VM booted and where its agent listens. */
export function session(pitcherUrl: string, id: string, bootupType: string, workspace: string) {
  return {
    bootup_type: bootupType,
    cluster: 'local',
    pitcher_url: pitcherUrl,
    pitcher_token: `token-${id}`,
    workspace_path: workspace,
    user_workspace_path: workspace,
    pitcher_manager_version: '0.0.0',
    pitcher_version: '0.0.0',
    latest_pitcher_version: '0.0.0',
  };
}

/**
 * Idle hibernation: calls `hibernate` once `vm` has had no message for `idle` ms while running
 * (the SDK's keep-alive, `system/update` every 10 s, counts as a message).
 */
export function whenIdle(
  vm: { readonly status: string; lastActivity: number },
  idle: number,
  hibernate: () => void,
): void {
  vm.lastActivity = Date.now();
  const timer = setInterval(() => {
    if (vm.status === 'running' && Date.now() - vm.lastActivity <= idle) return;
    clearInterval(timer);
    if (vm.status === 'running') hibernate();
  }, 100).unref();
}
