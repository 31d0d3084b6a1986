/**
 * `runInSandbox`: the loop an agent run needs. Create or resume a sandbox, restore the workspace
 * into its tree (after a clean or forked boot nothing missing from the tree is taken for a
 * deletion; a template's files stay out of the workspace), run the command, sync its results
 * back conflict-safely, hibernate — even when the command fails, and without a failed
 * hibernate hiding the command's result.
 */
import { isSatchelError } from '@satchel/client/errors.js';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import type { SyncReport } from '@satchel/client/schemas/sync.js';
import { type SyncProgress, syncOnce } from '@satchel/client/sync/sync.js';
import type { BootKind, ExecOptions, SandboxHandle, SandboxProvider } from './provider.js';
import { filePattern, TEMPLATE_STATE, templatePaths } from './template.js';

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
  /** Why the sandbox could not be hibernated afterwards (it idles out by itself); absent when it was. */
  readonly hibernateError?: string;
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

/**
 * The template's files to keep out of sync, as exclude patterns. On the first run after a fork,
 * a template file the workspace also has is removed from the tree, so the restore brings the
 * workspace's version instead of a conflict; only the others stay recorded.
 */
async function templateExcludes(
  options: SandboxRunOptions,
  handle: SandboxHandle,
): Promise<string[]> {
  let paths = await templatePaths(handle.tree);
  if (handle.boot === 'new' && paths.length > 0) {
    const ours: string[] = [];
    for (const path of paths) {
      const inWorkspace = await options.satchel
        .stat(options.workspace, `/${path}`)
        .then(() => true)
        .catch(() => false);
      if (inWorkspace) await handle.tree.remove(path);
      else ours.push(path);
    }
    paths = ours;
    await handle.tree.writeState(TEMPLATE_STATE, `${JSON.stringify(paths)}\n`);
  }
  return paths.map(filePattern);
}

/** Runs `command` in a sandbox between a restore and a save of `workspace`. */
export async function runInSandbox(options: SandboxRunOptions): Promise<SandboxRunResult> {
  const { provider, satchel, workspace } = options;
  options.onPhase?.('start', null);
  const handle = await start(options);
  let result: Omit<SandboxRunResult, 'hibernateError'>;
  try {
    const exclude = [...(options.exclude ?? []), ...(await templateExcludes(options, handle))];
    const sync = {
      satchel,
      workspace,
      tree: handle.tree,
      label: handle.id,
      ...(options.session === undefined ? {} : { session: options.session }),
      ...(exclude.length === 0 ? {} : { exclude }),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    };
    options.onPhase?.('restore', handle);
    // A clean or forked VM lost nothing the user deleted: what is missing is brought back.
    const restored = handle.boot === 'clean' || handle.boot === 'new';
    const restore = await syncOnce({ ...sync, restored });
    options.onPhase?.('run', handle);
    const { exitCode } = await handle.exec(options.command, options);
    options.onPhase?.('save', handle);
    const save = await syncOnce(sync);
    result = { sandbox: handle.id, boot: handle.boot, restore, exitCode, save };
  } catch (error) {
    options.onPhase?.('hibernate', handle);
    await provider.hibernate(handle.id).catch(() => undefined);
    throw error;
  }
  options.onPhase?.('hibernate', handle);
  try {
    await provider.hibernate(handle.id);
    return result;
  } catch (error) {
    return { ...result, hibernateError: error instanceof Error ? error.message : String(error) };
  }
}
