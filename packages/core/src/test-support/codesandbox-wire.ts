/**
 * A wire-level stand-in for CodeSandbox: a local server speaking what @codesandbox/sdk 2.4.2
 * speaks, so the real SDK runs unmodified against it (`new CodeSandbox(key, { baseUrl })`).
 *
 * - REST (the SDK's API client): `POST /sandbox/:id/fork`, `POST /vm/:id/start|hibernate|
 *   shutdown`, answers in `{ data }`, failures as `{ errors: [...] }` with the status the SDK
 *   turns into its messages (404 "Sandbox not found", 403 "Unauthorized", 429 RateLimitError,
 *   503 "overloaded").
 * - The sandbox connection (pitcher): a WebSocket at the `pitcher_url` the start call returns,
 *   msgpack frames `{ id, method, params }` answered `{ id, result }` or `{ id, error: { code,
 *   message, data } }`, notifications `{ method, params }`. Implemented: client/join, setup/get
 *   (+ setup/progress), system/update, fs/readFile|readdir|writeFile|stat|rename|remove|mkdir|
 *   watch|unwatch (+ fs/watchEvent, batched), shell/create|terminate|rename|in (+ shell/out,
 *   shell/exit), system/hibernate on hibernation. fs errors are code 102 with `data.errno`, which
 *   the SDK turns into `Error("<errno>: <message>")` with no `.code`.
 *
 * Each sandbox is a directory playing the VM's `/`. Boot states: a fork boots FORK (the
 * template's files present), a hibernated sandbox RESUME, a shut-down one CLEAN with its files,
 * an archived one CLEAN from "git": files its root .gitignore matches dropped, every mtime new.
 * Shells run `bash -c` with stdout and stderr merged, LF written as CRLF (a PTY), stdin open
 * and never written (a prompt waits forever, as in a PTY nobody types into).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { decode, encode } from '@msgpack/msgpack';
import ignore from 'ignore';
import { type WebSocket, WebSocketServer } from 'ws';

const WORKSPACE = '/project/workspace';
const RAWFS_ERROR = 102;
const ERRNO: Readonly<Record<string, number>> = {
  ENOENT: 2,
  EEXIST: 17,
  ENOTDIR: 20,
  EISDIR: 21,
  ENOTEMPTY: 39,
};

type Status = 'running' | 'hibernated' | 'shutdown' | 'archived' | 'forked';
type Params = Record<string, unknown>;

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

interface Vm {
  status: Status;
  sockets: Set<WebSocket>;
  shells: Map<string, ChildProcess>;
  setupDone: boolean;
  lastActivity: number;
}

/** The stand-in: `baseUrl` for `new CodeSandbox(key, { baseUrl })`. */
export class CodeSandboxWire {
  readonly calls: string[] = [];
  private readonly vms = new Map<string, Vm>();
  private readonly roots = new Map<string, string>();
  private readonly faults: Array<{ method: string; fault: Fault; path?: string }> = [];
  private server: Server | null = null;
  private wss: WebSocketServer | null = null;
  private nextWatch = 0;
  private nextShell = 0;

  constructor(
    readonly root: string,
    private readonly options: WireOptions = {},
  ) {}

  get baseUrl(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('not started');
    return `http://127.0.0.1:${address.port}`;
  }

  /** The local directory playing sandbox `id`'s `/`. */
  vmRoot(id: string): string {
    return this.roots.get(id) ?? join(this.root, id);
  }

  /** A hibernated sandbox whose `/` is `dir` on this machine (`/` itself for absolute paths). */
  attach(id: string, dir: string): void {
    this.roots.set(id, dir);
    this.vms.set(id, this.newVm('hibernated'));
  }

  /** Where `path` of `id`'s working tree lies on this machine. */
  treePath(id: string, path = ''): string {
    return join(this.vmRoot(id), WORKSPACE, path);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.rest(req, res).catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: [String(error)] }));
      });
    });
    this.wss = new WebSocketServer({ server: this.server });
    this.wss.on('connection', (ws, req) => this.connection(ws, req));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async close(): Promise<void> {
    for (const vm of this.vms.values()) this.stopVm(vm);
    for (const ws of this.wss?.clients ?? []) ws.terminate();
    await new Promise<void>((resolve) => this.wss?.close(() => resolve()));
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** A template sandbox with these files in its working tree. */
  async template(id: string, files: Readonly<Record<string, string>>): Promise<void> {
    await nodeFs.mkdir(this.treePath(id), { recursive: true });
    for (const [path, text] of Object.entries(files)) {
      await nodeFs.mkdir(join(this.treePath(id, path), '..'), { recursive: true });
      await nodeFs.writeFile(this.treePath(id, path), text);
    }
    this.vms.set(id, this.newVm('hibernated'));
  }

  /** The next call of `method` (a REST path's verb like `start`, or a pitcher method) fails. */
  inject(method: string, fault: Fault, path?: string): void {
    this.faults.push({ method, fault, ...(path === undefined ? {} : { path }) });
  }

  /** Hibernates `id` now, as an idle timeout would: clients get system/hibernate, shells die. */
  hibernateNow(id: string): void {
    const vm = this.vms.get(id);
    if (!vm) throw new Error(`no sandbox ${id}`);
    this.notifyAll(vm, 'system/hibernate', {});
    this.stopVm(vm);
    vm.status = 'hibernated';
  }

  /** Dormant long enough to be archived: the next start is CLEAN from "git". */
  archive(id: string): void {
    const vm = this.vms.get(id);
    if (!vm) throw new Error(`no sandbox ${id}`);
    this.stopVm(vm);
    vm.status = 'archived';
  }

  private newVm(status: Status): Vm {
    return { status, sockets: new Set(), shells: new Map(), setupDone: true, lastActivity: 0 };
  }

  private stopVm(vm: Vm): void {
    for (const child of vm.shells.values()) kill(child);
    vm.shells.clear();
    for (const ws of vm.sockets) ws.close();
    vm.sockets.clear();
  }

  private takeFault(method: string, path?: string): Fault | null {
    const i = this.faults.findIndex(
      (f) => f.method === method && (f.path === undefined || f.path === path),
    );
    if (i === -1) return null;
    const [taken] = this.faults.splice(i, 1);
    return taken?.fault ?? null;
  }

  private async delay(): Promise<void> {
    const ms = this.options.latencyMs ?? 0;
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  }

  // ---- REST ----

  private async rest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    for await (const _ of req) {
      // The bodies (privacy, tags, start options) change nothing here.
    }
    await this.delay();
    const url = new URL(req.url ?? '/', 'http://x');
    const match = /^\/(sandbox|vm)\/([^/]+)\/(fork|start|hibernate|shutdown)$/.exec(url.pathname);
    if (req.method !== 'POST' || !match) return send(404, { errors: ['no such route'] });
    const [, , id = '', verb = ''] = match;
    this.calls.push(`${verb} ${id}`);
    const key = this.options.apiKey;
    if (key !== undefined && req.headers.authorization !== `Bearer ${key}`) {
      return send(401, { errors: ['Not authenticated: invalid API key'] });
    }
    const fault = this.takeFault(verb, id) ?? this.takeFault(verb);
    if (fault?.kind === 'status') {
      const headers: Record<string, string> =
        fault.status === 429
          ? { 'x-csb-rate-hourly-remaining': '0', 'x-csb-rate-hourly-used': '100' }
          : {};
      return send(fault.status, { errors: [`injected ${fault.status}`] }, headers);
    }
    const vm = this.vms.get(id);
    if (!vm) return send(404, { errors: ['Sandbox not found'] });
    if (verb === 'fork') {
      const copy = `sbx${randomBytes(3).toString('hex')}`;
      await nodeFs.cp(this.vmRoot(id), this.vmRoot(copy), { recursive: true });
      this.vms.set(copy, this.newVm('forked'));
      return send(200, { data: { id: copy, alias: copy, title: null } });
    }
    if (verb === 'hibernate' || verb === 'shutdown') {
      this.stopVm(vm);
      vm.status = verb === 'hibernate' ? 'hibernated' : 'shutdown';
      return send(200, { data: {} });
    }
    return send(200, { data: await this.boot(id, vm) });
  }

  private async boot(id: string, vm: Vm) {
    const before = vm.status;
    const bootupType =
      before === 'running'
        ? 'RUNNING'
        : before === 'hibernated'
          ? 'RESUME'
          : before === 'forked'
            ? 'FORK'
            : 'CLEAN';
    if (before === 'archived') await this.restoreFromGit(id);
    vm.status = 'running';
    if (bootupType === 'CLEAN' || bootupType === 'FORK') {
      vm.setupDone = (this.options.setupMs ?? 0) === 0;
      if (!vm.setupDone) {
        setTimeout(() => {
          vm.setupDone = true;
          this.notifyAll(vm, 'setup/progress', this.setupProgress(vm));
        }, this.options.setupMs).unref();
      }
    }
    const address = this.server?.address() as AddressInfo;
    return {
      bootup_type: bootupType,
      cluster: 'local',
      pitcher_url: `ws://127.0.0.1:${address.port}/pitcher/${id}`,
      pitcher_token: `token-${id}`,
      workspace_path: WORKSPACE,
      user_workspace_path: WORKSPACE,
      pitcher_manager_version: '0.0.0',
      pitcher_version: '0.0.0',
      latest_pitcher_version: '0.0.0',
    };
  }

  /** What a restore from the archive leaves: gitignored files gone, every mtime new. */
  private async restoreFromGit(id: string): Promise<void> {
    const tree = this.treePath(id);
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

  // ---- pitcher ----

  private connection(ws: WebSocket, req: IncomingMessage): void {
    const id = /^\/pitcher\/([^/?]+)/.exec(req.url ?? '')?.[1] ?? '';
    const vm = this.vms.get(id);
    if (vm?.status !== 'running') {
      ws.close(4004, 'sandbox not running');
      return;
    }
    vm.sockets.add(ws);
    ws.on('close', () => vm.sockets.delete(ws));
    ws.on('message', (data: Buffer, isBinary) => {
      if (!isBinary) {
        ws.send(''); // the SDK's heartbeat is an empty text frame
        return;
      }
      const message = decode(data) as { id: number; method: string; params: Params };
      void this.answer(ws, id, vm, message);
    });
  }

  private send(ws: WebSocket, payload: unknown): void {
    if (ws.readyState === ws.OPEN) ws.send(encode(payload));
  }

  private notifyAll(vm: Vm, method: string, params: unknown): void {
    for (const ws of vm.sockets) this.send(ws, { method, params });
  }

  private setupProgress(vm: Vm) {
    const step = {
      name: 'install',
      command: 'true',
      shellId: null,
      finishStatus: vm.setupDone ? 'SUCCEEDED' : null,
    };
    return {
      state: vm.setupDone ? 'FINISHED' : 'IN_PROGRESS',
      steps: [step],
      currentStepIndex: 0,
    };
  }

  private async answer(
    ws: WebSocket,
    id: string,
    vm: Vm,
    message: { id: number; method: string; params: Params },
  ): Promise<void> {
    vm.lastActivity = Date.now();
    const path = typeof message.params?.path === 'string' ? message.params.path : undefined;
    const fault = this.takeFault(message.method, path);
    await this.delay();
    if (fault?.kind === 'hang') return;
    if (fault?.kind === 'disconnect') {
      ws.terminate();
      return;
    }
    if (fault?.kind === 'error') {
      this.send(ws, { id: message.id, error: { code: 1, message: fault.message } });
      return;
    }
    try {
      const result = await this.handle(ws, id, vm, message.method, message.params ?? {});
      this.send(ws, { id: message.id, result });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      const errno = ERRNO[code] ?? null;
      this.send(ws, {
        id: message.id,
        error: {
          code: errno === null ? 1 : RAWFS_ERROR,
          message: (error as Error).message,
          data: { errno },
        },
      });
    }
  }

  private abs(id: string, path: unknown): string {
    return join(this.vmRoot(id), String(path));
  }

  private async handle(ws: WebSocket, id: string, vm: Vm, method: string, p: Params) {
    const abs = (key = 'path') => this.abs(id, p[key]);
    switch (method) {
      case 'client/join':
        return { client: { clientId: 'c1', username: 'csb' }, reconnectToken: 'r1' };
      case 'setup/get':
        return this.setupProgress(vm);
      case 'system/update':
        return {};
      case 'port/list':
        return { list: [] };
      case 'task/list':
        return { tasks: {}, setupTasks: [], validationErrors: [] };
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
        const clobbers = this.options.renameClobbers ?? true;
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
        if (existing?.isDirectory() && this.options.mkdirExistingFails === false) return {};
        await nodeFs.mkdir(abs(), { recursive: Boolean(p.recursive) });
        return {};
      }
      case 'fs/watch':
        return { watchId: this.watch(ws, id, String(p.path)) };
      case 'fs/unwatch':
        return {};
      case 'shell/create':
        return this.shell(id, vm, String(p.command), String(p.cwd ?? WORKSPACE));
      case 'shell/terminate': {
        const child = vm.shells.get(String(p.shellId));
        if (child) kill(child);
        return {};
      }
      case 'shell/rename':
      case 'shell/in':
        return {};
      default:
        throw new Error(`method ${method} is not part of the stand-in`);
    }
  }

  /** Batches of events every 20 ms, paths absolute in the VM. */
  private watch(ws: WebSocket, id: string, path: string): string {
    const watchId = `w${this.nextWatch++}`;
    const root = this.abs(id, path);
    let pending: Array<{ paths: string[]; type: 'add' | 'change' | 'remove' }> = [];
    const stop = new AbortController();
    const watcher = nodeFs.watch(root, { recursive: true, signal: stop.signal });
    void (async () => {
      try {
        for await (const event of watcher) {
          if (event.filename === null) continue;
          pending.push({ paths: [`${path}/${event.filename}`], type: 'change' });
          setTimeout(() => {
            if (pending.length === 0) return;
            this.send(ws, { method: 'fs/watchEvent', params: { watchId, events: pending } });
            pending = [];
          }, 20);
        }
      } catch {
        // closed
      }
    })();
    ws.on('close', () => stop.abort());
    return watchId;
  }

  private shell(id: string, vm: Vm, command: string, cwd: string) {
    const shellId = `s${this.nextShell++}`;
    // Started once the answer is out: the SDK listens for output only after it has the id.
    setTimeout(() => this.spawnShell(id, vm, shellId, command, cwd), 10);
    return { shellId, status: 'RUNNING', buffer: [], name: '', shellType: 'TERMINAL' };
  }

  private spawnShell(id: string, vm: Vm, shellId: string, command: string, cwd: string): void {
    if (vm.status !== 'running') return;
    // The SDK prefixes `cd <cwd> && `: a VM path, mapped to where it lies here.
    const line = command.replace(
      /^cd (\/\S*) && /,
      (_, dir: string) => `cd '${this.abs(id, dir)}' && `,
    );
    // The SDK sources $HOME/.private/.env; HOME is the VM's root here.
    const child = spawn('bash', ['-c', line], {
      cwd: this.abs(id, cwd),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.vmRoot(id), TERM: 'xterm' },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    vm.shells.set(shellId, child);
    const pty = (chunk: Buffer) => {
      let out = chunk.toString('utf8').replace(/\r?\n/g, '\r\n');
      if (this.options.ansi) out = `\x1b[32m${out}\x1b[0m`;
      this.notifyAll(vm, 'shell/out', { shellId, out });
    };
    child.stdout?.on('data', pty);
    child.stderr?.on('data', pty);
    child.on('close', (code, signal) => {
      if (vm.shells.get(shellId) !== child) return; // killed by hibernation: no exit is sent
      vm.shells.delete(shellId);
      if (signal !== null) this.notifyAll(vm, 'shell/terminate', { shellId });
      else this.notifyAll(vm, 'shell/exit', { shellId, exitCode: code ?? 1 });
    });
  }
}

function kill(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
