/**
 * Sandbox providers: where an agent runs. `local` (directories and child processes, local.ts)
 * and `codesandbox` (@codesandbox/sdk, codesandbox.ts) behind one interface; `runInSandbox`
 * (run.ts) restores a workspace into a sandbox, runs a command and syncs the results back.
 */
import type { Writable } from 'node:stream';
import type { SyncTree } from '@satchel/client/sync/tree.js';

/**
 * How a sandbox came up: `new` (just created), `resumed` (files and memory as they were),
 * `running` (it never stopped), `clean` (booted from scratch: its working tree may be empty).
 */
export type BootKind = 'new' | 'resumed' | 'running' | 'clean';

export interface ExecOptions {
  readonly env?: Readonly<Record<string, string>>;
  /** Where the command's output goes (default: discarded). */
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  /** Stop the command after this many ms: exit code 124. Default: the provider's (codesandbox). */
  readonly timeoutMs?: number;
}

export interface ExecResult {
  /** The command's exit code; 127 when it could not be started. */
  readonly exitCode: number;
}

/** A started sandbox: its working tree and a way to run commands in it. */
export interface SandboxHandle {
  readonly id: string;
  readonly boot: BootKind;
  /** The sandbox's working tree, as sync sees it. */
  readonly tree: SyncTree;
  /** Runs `command` (argv, no shell) with the working tree as its directory. */
  exec(command: readonly string[], options?: ExecOptions): Promise<ExecResult>;
}

export interface CreateSandbox {
  /** Local sandboxes: the id to use (default: a random one). */
  readonly id?: string;
  /** CodeSandbox: the template (sandbox id) to fork from. */
  readonly template?: string;
}

export interface SandboxProvider {
  readonly name: string;
  create(options?: CreateSandbox): Promise<SandboxHandle>;
  /** NOT_FOUND for an unknown sandbox. */
  resume(id: string): Promise<SandboxHandle>;
  /** Suspends the sandbox; its files are kept. NOT_FOUND for an unknown sandbox. */
  hibernate(id: string): Promise<void>;
  /** Stops the sandbox; the next resume boots `clean`. NOT_FOUND for an unknown sandbox. */
  shutdown(id: string): Promise<void>;
  /** Empties the sandbox's working tree, as a clean boot after a lost snapshot would. */
  reset?(id: string): Promise<void>;
}
