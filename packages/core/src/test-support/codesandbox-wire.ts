/**
 * A wire-level stand-in for CodeSandbox: a local server speaking what @codesandbox/sdk 2.4.2
 * speaks, so the real SDK runs unmodified against it (`new CodeSandbox(key, { baseUrl })`).
 *
 * - REST: `POST /sandbox/:id/fork`, `POST /vm/:id/start|hibernate|shutdown`, answers in
 *   `{ data }`, failures as `{ errors: [...] }` with the status the SDK turns into its messages
 *   (404 "Sandbox not found", 401/403, 429 RateLimitError, 503).
 * - The sandbox connection (pitcher): a WebSocket at the start call's `pitcher_url`, msgpack
 *   `{ id, method, params }` answered `{ id, result }` or `{ id, error }`, notifications
 *   `{ method, params }`: client/join, setup/get (+ setup/progress), system/update (the SDK's
 *   keep-alive), fs/* (+ fs/watchEvent in batches of add/change/remove), shell/* (+ shell/out,
 *   shell/exit), system/hibernate. fs errors are code 102 with `data.errno`, which the SDK turns
 *   into `Error("<errno>: <message>")` with no `.code`.
 *
 * Each sandbox is a directory playing the VM's `/`. A fork boots FORK (the template's files
 * present), a hibernated sandbox RESUME, a shut-down one CLEAN with its files, an archived one
 * CLEAN from "git" (gitignored files dropped, every mtime new). Shells run `bash -c`, output
 * merged and CRLF (a PTY), stdin open and never written. What the real VM does is unknown for
 * some calls: those are options (codesandbox-wire-vm.ts), tested both ways.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { decode, encode } from '@msgpack/msgpack';
import { type WebSocket, WebSocketServer } from 'ws';
import {
  type Fault,
  kill,
  restoreFromGit,
  session,
  setupProgress,
  spawnPtyShell,
  vmFs,
  type WireOptions,
  watchBatches,
  whenIdle,
  wireError,
} from './codesandbox-wire-vm.js';

export type { Fault, WireOptions };

const WORKSPACE = '/project/workspace';

type Status = 'running' | 'hibernated' | 'shutdown' | 'archived' | 'forked';
/** What `bootup_type` a start reports for a sandbox in each state. */
const BOOTUP: Readonly<Record<Status, string>> = {
  running: 'RUNNING',
  hibernated: 'RESUME',
  forked: 'FORK',
  shutdown: 'CLEAN',
  archived: 'CLEAN',
};
type Params = Record<string, unknown>;

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
  /** Pitcher calls answered, by method (`fs/writeFile`, `shell/create`…). */
  readonly methods = new Map<string, number>();
  /** The most pitcher calls that were in flight at once (reset it to measure a stretch). */
  maxInFlight = 0;
  private inFlight = 0;
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
    await nodeFs.mkdir(join(this.vmRoot(id), 'tmp'), { recursive: true });
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

  /** The network drops `id`'s connections; the sandbox keeps running (the SDK reconnects). */
  dropConnections(id: string): void {
    for (const ws of this.vms.get(id)?.sockets ?? []) ws.terminate();
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

  private async delay(method: string): Promise<void> {
    const { latencyMs } = this.options;
    const ms = typeof latencyMs === 'number' ? latencyMs : (latencyMs?.[method] ?? 0);
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  }

  private async rest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    for await (const _ of req) {
      // The bodies (privacy, tags, start options) change nothing here.
    }
    await this.delay('rest');
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
    const bootupType = BOOTUP[before];
    if (before === 'archived') await restoreFromGit(this.treePath(id));
    vm.status = 'running';
    const idle = this.options.idleHibernateMs;
    if (before !== 'running' && idle !== undefined) whenIdle(vm, idle, () => this.hibernateNow(id));
    if (bootupType === 'CLEAN' || bootupType === 'FORK') {
      const { setupMs = 0, setupFile } = this.options;
      vm.setupDone = setupMs === 0 && setupFile === undefined;
      if (!vm.setupDone) {
        setTimeout(async () => {
          if (setupFile !== undefined)
            await nodeFs.writeFile(this.treePath(id, setupFile), 'set up\n');
          vm.setupDone = true;
          this.notifyAll(vm, 'setup/progress', setupProgress(vm.setupDone));
        }, setupMs).unref();
      }
    }
    const address = this.server?.address() as AddressInfo;
    return session(`ws://127.0.0.1:${address.port}/pitcher/${id}`, id, bootupType, WORKSPACE);
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

  private async answer(
    ws: WebSocket,
    id: string,
    vm: Vm,
    message: { id: number; method: string; params: Params },
  ): Promise<void> {
    vm.lastActivity = Date.now();
    this.methods.set(message.method, (this.methods.get(message.method) ?? 0) + 1);
    const path = typeof message.params?.path === 'string' ? message.params.path : undefined;
    const fault = this.takeFault(message.method, path);
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    try {
      await this.delay(message.method);
    } finally {
      this.inFlight--;
    }
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
      this.send(ws, { id: message.id, error: wireError(error) });
    }
  }

  private abs(id: string, path: unknown): string {
    return join(this.vmRoot(id), String(path));
  }

  private async handle(ws: WebSocket, id: string, vm: Vm, method: string, p: Params) {
    const _abs = (key = 'path') => this.abs(id, p[key]);
    switch (method) {
      case 'client/join':
        return { client: { clientId: 'c1', username: 'csb' }, reconnectToken: 'r1' };
      case 'setup/get':
        return setupProgress(vm.setupDone);
      case 'system/update':
        return {};
      case 'port/list':
        return { list: [] };
      case 'task/list':
        return { tasks: {}, setupTasks: [], validationErrors: [] };
      case 'fs/readFile':
      case 'fs/readdir':
      case 'fs/writeFile':
      case 'fs/stat':
      case 'fs/rename':
      case 'fs/remove':
      case 'fs/mkdir':
        return vmFs(method, p, (key = 'path') => this.abs(id, p[key]), this.options);
      case 'fs/watch':
        return { watchId: this.watch(ws, id, String(p.path), (p.excludes ?? []) as string[]) };
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
  private watch(ws: WebSocket, id: string, path: string, excludes: readonly string[]): string {
    const watchId = `w${this.nextWatch++}`;
    const request = { local: this.abs(id, path), path, excludes, options: this.options };
    const stop = watchBatches(request, (events) =>
      this.send(ws, { method: 'fs/watchEvent', params: { watchId, events } }),
    );
    ws.on('close', stop);
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
    const child = spawnPtyShell(this.vmRoot(id), command, cwd, this.options.ansi === true, (out) =>
      this.notifyAll(vm, 'shell/out', { shellId, out }),
    );
    vm.shells.set(shellId, child);
    child.on('close', (code, signal) => {
      if (vm.shells.get(shellId) !== child) return; // killed by hibernation: no exit is sent
      vm.shells.delete(shellId);
      if (signal !== null) this.notifyAll(vm, 'shell/terminate', { shellId });
      else this.notifyAll(vm, 'shell/exit', { shellId, exitCode: code ?? 1 });
    });
  }
}
