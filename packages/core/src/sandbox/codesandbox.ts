/**
 * The `codesandbox` sandbox provider on @codesandbox/sdk: create from a template, resume (the
 * SDK's `bootupType` says whether memory and files survived), hibernate, shutdown; the tree over
 * `client.fs`, exec over `client.commands`. It depends on the narrow interfaces below, which the
 * real SDK satisfies (checked at compile time), so tests run it against a local stand-in.
 */
import { SatchelError } from '@satchel/client/errors.js';
import { CodeSandboxTree, type CsbFileSystem } from './codesandbox-tree.js';
import type {
  BootKind,
  CreateSandbox,
  ExecOptions,
  ExecResult,
  SandboxHandle,
  SandboxProvider,
} from './provider.js';

/** What `sandbox.bootupType` says about how the VM came up. */
export type CsbBootupType = 'RUNNING' | 'CLEAN' | 'RESUME' | 'FORK';

/** A connected sandbox client (SandboxClient), as far as Satchel uses it. */
export interface CsbClient {
  readonly fs: CsbFileSystem;
  readonly commands: {
    /** Resolves with the output; rejects with a CommandError (`exitCode`, `output`) on failure. */
    run(
      command: string | string[],
      opts?: { cwd?: string; env?: Record<string, string> },
    ): Promise<string>;
  };
  readonly workspacePath: string;
  disconnect(): Promise<void>;
}

/** A started sandbox (class Sandbox). */
export interface CsbSandbox {
  readonly id: string;
  readonly bootupType: CsbBootupType;
  connect(): Promise<CsbClient>;
}

/**
 * `sdk.sandboxes` (class Sandboxes), as far as Satchel uses it. Declared here because the SDK's
 * .d.ts files do not resolve under NodeNext; test-support/codesandbox-stand-in.ts checks with
 * the SDK's own types (`tsc -p tsconfig.sdk.json`, part of `pnpm typecheck`) that the real
 * `Sandboxes` and `SandboxClient` satisfy these interfaces.
 */
export interface CsbSandboxes {
  create(opts?: {
    id?: string;
    privacy?: 'private';
    tags?: string[];
    title?: string;
  }): Promise<CsbSandbox>;
  resume(sandboxId: string): Promise<CsbSandbox>;
  hibernate(sandboxId: string): Promise<void>;
  shutdown(sandboxId: string): Promise<void>;
}

const BOOT: Readonly<Record<CsbBootupType, BootKind>> = {
  RUNNING: 'running',
  RESUME: 'resumed',
  CLEAN: 'clean',
  FORK: 'new',
};

/** One argv as a POSIX shell command line (the SDK runs commands through a shell). */
export function shellQuote(argv: readonly string[]): string {
  return argv
    .map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

function exitCodeOf(error: unknown): { exitCode: number; output: string } | null {
  if (typeof error !== 'object' || error === null) return null;
  const { exitCode, output } = error as { exitCode?: unknown; output?: unknown };
  if (typeof exitCode !== 'number') return null;
  return { exitCode, output: typeof output === 'string' ? output : '' };
}

/**
 * The SDK reports an API answer 404 as a plain Error whose message ends in ": Sandbox not found"
 * (its `handleResponse`), with no status or code to test instead; that becomes NOT_FOUND.
 */
function asNotFound(error: unknown, id: string): unknown {
  if (error instanceof Error && error.message.endsWith(': Sandbox not found')) {
    return new SatchelError('NOT_FOUND', `sandbox ${id} not found`, { sandbox: id });
  }
  return error;
}

export interface CodeSandboxOptions {
  /** Template to fork when `create` names none. Default: the SDK's default template. */
  readonly template?: string;
  /** The tree's folder inside the VM. Default: the client's `workspacePath`. */
  readonly root?: string;
}

/** Sandboxes on CodeSandbox (or anything implementing the SDK's interfaces). */
export class CodeSandboxProvider implements SandboxProvider {
  readonly name = 'codesandbox';
  private readonly clients = new Map<string, CsbClient>();

  constructor(
    private readonly sandboxes: CsbSandboxes,
    private readonly options: CodeSandboxOptions = {},
  ) {}

  private async open(sandbox: CsbSandbox, boot: BootKind): Promise<SandboxHandle> {
    const client = await sandbox.connect();
    this.clients.set(sandbox.id, client);
    const root = this.options.root ?? client.workspacePath;
    return {
      id: sandbox.id,
      boot,
      tree: new CodeSandboxTree(client.fs, root, sandbox.id),
      exec: (command, options) => this.exec(client, root, command, options),
    };
  }

  private async exec(
    client: CsbClient,
    cwd: string,
    command: readonly string[],
    options: ExecOptions = {},
  ): Promise<ExecResult> {
    if (command.length === 0) {
      throw new SatchelError('INVALID_INPUT', 'no command to run', { field: 'command' });
    }
    const run = { cwd, ...(options.env === undefined ? {} : { env: { ...options.env } }) };
    try {
      const output = await client.commands.run(shellQuote(command), run);
      options.stdout?.write(output.endsWith('\n') || output === '' ? output : `${output}\n`);
      return { exitCode: 0 };
    } catch (error) {
      const failed = exitCodeOf(error);
      if (failed === null) throw error;
      options.stdout?.write(failed.output);
      return { exitCode: failed.exitCode };
    }
  }

  async create(options: CreateSandbox = {}): Promise<SandboxHandle> {
    const template = options.template ?? this.options.template;
    const sandbox = await this.sandboxes.create({
      ...(template === undefined ? {} : { id: template }),
      // Agent data is nobody else's business; "public" is the SDK's default.
      privacy: 'private',
      tags: ['satchel'],
    });
    return this.open(sandbox, 'new');
  }

  async resume(id: string): Promise<SandboxHandle> {
    const sandbox = await this.sandboxes.resume(id).catch((error: unknown) => {
      throw asNotFound(error, id);
    });
    return this.open(sandbox, BOOT[sandbox.bootupType] ?? 'clean');
  }

  private async disconnect(id: string): Promise<void> {
    const client = this.clients.get(id);
    this.clients.delete(id);
    await client?.disconnect().catch(() => undefined);
  }

  async hibernate(id: string): Promise<void> {
    await this.disconnect(id);
    await this.sandboxes.hibernate(id).catch((error: unknown) => {
      throw asNotFound(error, id);
    });
  }

  async shutdown(id: string): Promise<void> {
    await this.disconnect(id);
    await this.sandboxes.shutdown(id).catch((error: unknown) => {
      throw asNotFound(error, id);
    });
  }
}

/** The provider on the real service, with `apiKey` (CSB_API_KEY). Loads the SDK on first use. */
export async function codeSandboxProvider(
  apiKey: string,
  options: CodeSandboxOptions = {},
): Promise<CodeSandboxProvider> {
  const { CodeSandbox } = await import('@codesandbox/sdk');
  const sandboxes: CsbSandboxes = new CodeSandbox(apiKey).sandboxes;
  return new CodeSandboxProvider(sandboxes, options);
}
