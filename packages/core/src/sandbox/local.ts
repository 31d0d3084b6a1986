/**
 * The `local` sandbox provider: each sandbox is a directory under a root (`<data>/sandboxes/`
 * by default), commands are child processes started in it. Hibernate keeps the files; reset
 * empties the directory, which is what a CodeSandbox VM looks like after a CLEAN boot.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SatchelError } from '@satchel/client/errors.js';
import { LocalTree } from '@satchel/client/sync/local-tree.js';
import type {
  BootKind,
  CreateSandbox,
  ExecOptions,
  ExecResult,
  SandboxHandle,
  SandboxProvider,
} from './provider.js';

const SANDBOX_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function checkSandboxId(id: string): string {
  if (!SANDBOX_ID.test(id) || id.includes('..')) {
    throw new SatchelError(
      'INVALID_INPUT',
      'a sandbox id is 1-64 letters, digits, "_", "-" or "." and starts with a letter or digit',
      { field: 'sandbox' },
    );
  }
  return id;
}

/**
 * Runs argv in `cwd`, streaming its output; resolves with the exit code (127: not started),
 * rejects with INVALID_INPUT for an empty argv.
 */
export async function runProcess(
  command: readonly string[],
  cwd: string,
  options: ExecOptions = {},
): Promise<ExecResult> {
  const [file, ...args] = command;
  if (file === undefined) {
    throw new SatchelError('INVALID_INPUT', 'no command to run', { field: 'command' });
  }
  // Loaded with the first command run: a process that never runs one does not pay for it.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (options.stdout) child.stdout.pipe(options.stdout, { end: false });
    else child.stdout.resume();
    if (options.stderr) child.stderr.pipe(options.stderr, { end: false });
    else child.stderr.resume();
    child.once('error', (error) => {
      options.stderr?.write(`satchel: cannot run ${file}: ${error.message}\n`);
      resolve({ exitCode: 127 });
    });
    child.once('close', (code, signal) => {
      resolve({ exitCode: code ?? (signal === null ? 1 : 128 + signalNumber(signal)) });
    });
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return numbers[signal] ?? 1;
}

/** Sandboxes as directories on this machine. */
export class LocalSandboxProvider implements SandboxProvider {
  readonly name = 'local';

  constructor(readonly root: string) {}

  dir(id: string): string {
    return join(this.root, checkSandboxId(id));
  }

  private handle(id: string, boot: BootKind): SandboxHandle {
    const dir = this.dir(id);
    return {
      id,
      boot,
      tree: new LocalTree(dir),
      exec: (command, options) => runProcess(command, dir, options),
    };
  }

  async create(options: CreateSandbox = {}): Promise<SandboxHandle> {
    const id = checkSandboxId(options.id ?? `sbx-${randomBytes(4).toString('hex')}`);
    await mkdir(this.root, { recursive: true });
    try {
      await mkdir(this.dir(id));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new SatchelError('CONFLICT', `sandbox ${id} exists already`, { sandbox: id });
      }
      throw error;
    }
    return this.handle(id, 'new');
  }

  async resume(id: string): Promise<SandboxHandle> {
    const dir = this.dir(id);
    try {
      if (!(await stat(dir)).isDirectory()) throw new Error('not a directory');
    } catch {
      throw new SatchelError('NOT_FOUND', `sandbox ${id} not found`, { sandbox: id });
    }
    const empty = (await readdir(dir)).length === 0;
    return this.handle(id, empty ? 'clean' : 'resumed');
  }

  async hibernate(id: string): Promise<void> {
    await this.resume(id);
  }

  async shutdown(id: string): Promise<void> {
    await this.resume(id);
  }

  async reset(id: string): Promise<void> {
    const dir = this.dir(id);
    await this.resume(id);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
  }

  /** Ids of the sandboxes under the root. */
  async list(): Promise<string[]> {
    try {
      const entries = await readdir(this.root, { withFileTypes: true });
      return entries
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** Deletes a sandbox and its files. NOT_FOUND if there is none. */
  async destroy(id: string): Promise<void> {
    await this.resume(id);
    await rm(this.dir(id), { recursive: true, force: true });
  }
}
