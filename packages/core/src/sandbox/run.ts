/**
 * `runInSandbox`: the loop an agent run needs. Create or resume a sandbox, restore the workspace
 * into its tree (a clean boot is rehydrated, never mistaken for deletions), run the command,
 * sync its results back conflict-safely, hibernate — even when the command fails.
 */
import { isSatchelError } from '@satchel/client/errors.js';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import type { SyncReport } from '@satchel/client/schemas/sync.js';
import { type SyncProgress, syncOnce } from '@satchel/client/sync/sync.js';
import type { BootKind, ExecOptions, SandboxHandle, SandboxProvider } from './provider.js';

export interface SandboxRunOptions extends ExecOptions {
  readonly provider: SandboxProvider;
  readonly satchel: Satchel;
  readonly workspace: string;
  readonly command: readonly string[];
  /** Resume this sandbox (created with this id when the provider allows and it is missing). */
  readonly sandbox?: string;
  readonly template?: string;
  readonly session?: string;
  readonly exclude?: readonly string[];
  /** Called between phases: `start`, `restore`, `run`, `save`, `hibernate`. */
  readonly onPhase?: (phase: string, handle: SandboxHandle | null) => void;
  readonly onProgress?: (progress: SyncProgress) => void;
}

export interface SandboxRunResult {
  readonly sandbox: string;
  readonly boot: BootKind;
  readonly restore: SyncReport;
  readonly exitCode: number;
  readonly save: SyncReport;
}

async function start(options: SandboxRunOptions): Promise<SandboxHandle> {
  const { provider, sandbox, template } = options;
  if (sandbox === undefined) return provider.create(template === undefined ? {} : { template });
  try {
    return await provider.resume(sandbox);
  } catch (error) {
    if (!isSatchelError(error, 'NOT_FOUND') || provider.name !== 'local') throw error;
    return provider.create({ id: sandbox });
  }
}

/** Runs `command` in a sandbox between a restore and a save of `workspace`. */
export async function runInSandbox(options: SandboxRunOptions): Promise<SandboxRunResult> {
  const { provider, satchel, workspace } = options;
  options.onPhase?.('start', null);
  const handle = await start(options);
  try {
    const sync = {
      satchel,
      workspace,
      tree: handle.tree,
      label: handle.id,
      ...(options.session === undefined ? {} : { session: options.session }),
      ...(options.exclude === undefined ? {} : { exclude: options.exclude }),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    };
    options.onPhase?.('restore', handle);
    const restore = await syncOnce(sync);
    options.onPhase?.('run', handle);
    const { exitCode } = await handle.exec(options.command, options);
    options.onPhase?.('save', handle);
    const save = await syncOnce(sync);
    return { sandbox: handle.id, boot: handle.boot, restore, exitCode, save };
  } finally {
    options.onPhase?.('hibernate', handle);
    await provider.hibernate(handle.id);
  }
}
