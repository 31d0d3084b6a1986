/**
 * The `codesandbox` sandbox provider on @codesandbox/sdk: create from a template (a fork: the
 * template's files are recorded so they are not uploaded as the agent's work, an inherited
 * `.satchel-sync/` is discarded), resume (the SDK's `bootupType` says whether memory and files
 * survived; after CLEAN and FORK the setup tasks run again and are waited for), hibernate,
 * shutdown; the tree over `client.fs`, exec over `client.commands`. It depends on the narrow
 * interfaces below, which the real SDK satisfies (checked at compile time, and run in tests
 * against a wire-level stand-in, test-support/codesandbox-wire.ts).
 */
import { SatchelError } from '@satchel/client/errors.js';
import { STATE_DIR } from '@satchel/client/sync/tree.js';
import {
  boundedCall,
  DEFAULT_CALL_TIMEOUT_MS,
  isMissing,
  lifecycleError,
} from './codesandbox-errors.js';
import { CodeSandboxTree, type CsbFileSystem } from './codesandbox-tree.js';
import type {
  BootKind,
  CreateSandbox,
  ExecOptions,
  ExecResult,
  SandboxHandle,
  SandboxProvider,
} from './provider.js';
import { recordTemplateFiles } from './template.js';

/** What `sandbox.bootupType` says about how the VM came up. */
export type CsbBootupType = 'RUNNING' | 'CLEAN' | 'RESUME' | 'FORK';

interface Disposable {
  dispose(): void;
}

/** A command started with `runBackground` (class Command). */
export interface CsbCommand {
  onOutput(listener: (out: string) => void): Disposable;
  /** Resolves with the output; rejects with a CommandError (`exitCode`, `output`) on failure. */
  waitUntilComplete(): Promise<string>;
  kill(): Promise<void>;
}

/** A connected sandbox client (SandboxClient), as far as Satchel uses it. */
export interface CsbClient {
  readonly fs: CsbFileSystem;
  readonly commands: {
    runBackground(
      command: string | string[],
      opts?: { cwd?: string; env?: Record<string, string> },
    ): Promise<CsbCommand>;
  };
  readonly setup: {
    getSteps(): ReadonlyArray<{ waitUntilComplete(): Promise<void> }>;
  };
  readonly workspacePath: string;
  onStateChange(listener: (state: string) => void): Disposable;
  keepActiveWhileConnected(enabled: boolean): void;
  /** Waits for every call in flight first: one that is never answered keeps it waiting. */
  disconnect(): Promise<void>;
  dispose(): void;
}

/** A started sandbox (class Sandbox). */
export interface CsbSandbox {
  readonly id: string;
  readonly bootupType: CsbBootupType;
  connect(): Promise<CsbClient>;
}

/**
 * `sdk.sandboxes` (class Sandboxes), as far as Satchel uses it. Declared here because the SDK's
 * .d.ts files do not resolve under NodeNext; codesandbox-sdk.check.ts checks with the SDK's own
 * types (`tsc -p tsconfig.sdk.json`, part of `pnpm typecheck`) that the real `Sandboxes` and
 * `SandboxClient` satisfy these interfaces.
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

/**
 * Commands run in a PTY nobody types into: no pager, no colours, no prompts (stdin is
 * /dev/null, so a read gets end-of-file instead of waiting forever).
 */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  CI: '1',
  TERM: 'dumb',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  NO_COLOR: '1',
  DEBIAN_FRONTEND: 'noninteractive',
  GIT_TERMINAL_PROMPT: '0',
};

/** One argv as a POSIX shell command line (the SDK runs commands through a shell). */
export function shellQuote(argv: readonly string[]): string {
  return argv
    .map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

function exitCodeOf(error: unknown): number | null {
  const exitCode = (error as { exitCode?: unknown } | null)?.exitCode;
  return typeof exitCode === 'number' && Number.isInteger(exitCode) ? exitCode : null;
}

/** CSI sequences (colours, cursor moves) a PTY may add; TERM=dumb makes most programs skip them. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what it matches
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07/g;

/** PTY output as a pipe would give it: LF line ends, no escape sequences. */
export function plainOutput(out: string): string {
  return out.replace(ANSI, '').replace(/\r\n/g, '\n');
}

/** Rejects with UNAVAILABLE naming `what` when `promise` takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SatchelError('UNAVAILABLE', `${what} took longer than ${ms} ms`, {})),
      ms,
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export interface CodeSandboxOptions {
  /** Template to fork when `create` names none. Default: the SDK's default template. */
  readonly template?: string;
  /** The tree's folder inside the VM. Default: the client's `workspacePath`. */
  readonly root?: string;
  /** How long `connect` may take, ms. Default 60 000. */
  readonly connectTimeoutMs?: number;
  /** How long to wait for setup tasks after a CLEAN or FORK boot, ms. Default 300 000. */
  readonly setupTimeoutMs?: number;
  /** Default command timeout when `exec` is given none, ms. Default 3 600 000. */
  readonly commandTimeoutMs?: number;
  /** Files above this size are refused (CodeSandboxTree). Default 64 MiB. */
  readonly maxFileBytes?: number;
  /** How long one fs call may take, ms (CodeSandboxTree). Default 30 000. */
  readonly callTimeoutMs?: number;
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
    const client = await within(
      sandbox.connect(),
      this.options.connectTimeoutMs ?? 60_000,
      `connecting to sandbox ${sandbox.id}`,
    ).catch((error: unknown) => {
      throw lifecycleError(error, sandbox.id);
    });
    this.clients.set(sandbox.id, client);
    if (boot === 'clean' || boot === 'new') await this.waitForSetup(client, sandbox.id);
    const root = this.options.root ?? client.workspacePath;
    const { maxFileBytes, callTimeoutMs } = this.options;
    const tree = new CodeSandboxTree(client.fs, root, sandbox.id, {
      connection: client,
      workspacePath: client.workspacePath,
      ...(maxFileBytes === undefined ? {} : { maxFileBytes }),
      ...(callTimeoutMs === undefined ? {} : { callTimeoutMs }),
    });
    if (boot === 'new') await this.forget(client, root, tree);
    return {
      id: sandbox.id,
      boot,
      tree,
      exec: (command, options) => this.exec(client, root, command, options),
    };
  }

  /**
   * After CLEAN and FORK boots the template's setup tasks run again (installs, builds); files
   * they write would race the restore. A failed step is not ours to judge: only waited for.
   */
  private async waitForSetup(client: CsbClient, id: string): Promise<void> {
    const steps = client.setup.getSteps().map((step) => step.waitUntilComplete().catch(() => {}));
    await within(
      Promise.all(steps),
      this.options.setupTimeoutMs ?? 300_000,
      `the setup tasks of sandbox ${id}`,
    );
  }

  /**
   * A fresh fork: the sync state a template may carry is not this sandbox's (discarded), and
   * the template's files are recorded (template.ts) so runInSandbox does not upload them.
   */
  private async forget(client: CsbClient, root: string, tree: CodeSandboxTree): Promise<void> {
    const state = `${root}/${STATE_DIR}`;
    const ms = this.options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    // Not discarded means not this sandbox's to trust: the run stops rather than sync on it.
    await boundedCall('remove', state, ms, () => client.fs.remove(state, true)).catch(
      (error: unknown) => {
        if (!isMissing(error)) throw error;
      },
    );
    const files = await tree.list((dir) => dir === '.git');
    await recordTemplateFiles(
      tree,
      files
        .filter((f) => f.type === 'file')
        .map(({ path, size, mtimeMs }) => ({ path, size, mtimeMs })),
    );
  }

  /**
   * Runs `command` through the SDK's shell (bash in a PTY): output streamed as it comes (CRLF
   * and escape sequences removed; stdout and stderr arrive merged, all on `stdout`), stdin at
   * end-of-file, NON_INTERACTIVE_ENV, the sandbox kept awake meanwhile. A timeout kills the
   * command (exit code 124); a sandbox that hibernates or drops the connection meanwhile fails
   * the call with UNAVAILABLE instead of waiting for an exit that will not come.
   */
  private async exec(
    client: CsbClient,
    cwd: string,
    command: readonly string[],
    options: ExecOptions = {},
  ): Promise<ExecResult> {
    if (command.length === 0) {
      throw new SatchelError('INVALID_INPUT', 'no command to run', { field: 'command' });
    }
    const env = { ...NON_INTERACTIVE_ENV, ...options.env };
    const line = `exec 0</dev/null; ${shellQuote(command)}`;
    client.keepActiveWhileConnected(true);
    const disposables: Disposable[] = [];
    let timer: NodeJS.Timeout | undefined;
    try {
      const cmd = await client.commands.runBackground(line, { cwd, env });
      disposables.push(cmd.onOutput((out) => options.stdout?.write(plainOutput(out))));
      const lost = new Promise<never>((_, reject) => {
        disposables.push(
          client.onStateChange((state) => {
            if (state !== 'HIBERNATED' && state !== 'DISCONNECTED') return;
            reject(
              new SatchelError(
                'UNAVAILABLE',
                `the sandbox ${state === 'HIBERNATED' ? 'hibernated' : 'disconnected'} while the command was running; its outcome is unknown`,
                { provider: 'codesandbox', state },
              ),
            );
          }),
        );
      });
      const ms = options.timeoutMs ?? this.options.commandTimeoutMs ?? 3_600_000;
      const timedOut = new Promise<number>((resolve) => {
        timer = setTimeout(() => {
          options.stderr?.write(`satchel: the command took longer than ${ms} ms: stopped\n`);
          void cmd.kill().catch(() => undefined);
          resolve(124);
        }, ms);
      });
      const finished = cmd.waitUntilComplete().then(
        () => 0,
        (error: unknown) => {
          const exitCode = exitCodeOf(error);
          if (exitCode === null) throw error;
          return exitCode;
        },
      );
      return { exitCode: await Promise.race([finished, timedOut, lost]) };
    } finally {
      clearTimeout(timer);
      for (const d of disposables) d.dispose();
      client.keepActiveWhileConnected(false);
    }
  }

  async create(options: CreateSandbox = {}): Promise<SandboxHandle> {
    const template = options.template ?? this.options.template;
    const sandbox = await this.sandboxes
      .create({
        ...(template === undefined ? {} : { id: template }),
        // Agent data is nobody else's business; "public-hosts" is the SDK's default.
        privacy: 'private',
        tags: ['satchel'],
      })
      .catch((error: unknown) => {
        throw lifecycleError(error, template ?? 'the default template');
      });
    return this.open(sandbox, 'new');
  }

  async resume(id: string): Promise<SandboxHandle> {
    const sandbox = await this.sandboxes.resume(id).catch((error: unknown) => {
      throw lifecycleError(error, id);
    });
    return this.open(sandbox, BOOT[sandbox.bootupType] ?? 'clean');
  }

  /** Disconnects, or drops the connection when calls still in flight hold it up past 5 s. */
  private async disconnect(id: string): Promise<void> {
    const client = this.clients.get(id);
    this.clients.delete(id);
    if (client === undefined) return;
    await within(client.disconnect(), 5000, 'disconnecting').catch(() => client.dispose());
  }

  async hibernate(id: string): Promise<void> {
    await this.disconnect(id);
    await this.sandboxes.hibernate(id).catch((error: unknown) => {
      throw lifecycleError(error, id);
    });
  }

  async shutdown(id: string): Promise<void> {
    await this.disconnect(id);
    await this.sandboxes.shutdown(id).catch((error: unknown) => {
      throw lifecycleError(error, id);
    });
  }
}

/**
 * The provider on the real service, with `apiKey` (CSB_API_KEY); `baseUrl` points the SDK at
 * another API (a stand-in in tests). Loads the SDK on first use.
 */
export async function codeSandboxProvider(
  apiKey: string,
  options: CodeSandboxOptions & { readonly baseUrl?: string } = {},
): Promise<CodeSandboxProvider> {
  const { CodeSandbox } = await import('@codesandbox/sdk');
  const { baseUrl, ...rest } = options;
  const sdk = new CodeSandbox(apiKey, baseUrl === undefined ? {} : { baseUrl });
  const sandboxes: CsbSandboxes = sdk.sandboxes as unknown as CsbSandboxes;
  return new CodeSandboxProvider(sandboxes, rest);
}
