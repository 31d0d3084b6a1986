/**
 * `runInSandbox`: the loop an agent run needs. Create or resume a sandbox, restore the workspace
 * into its tree (after a clean or forked boot nothing missing from the tree is taken for a
 * deletion; a template's files stay out of the workspace), run the command, sync its results
 * back conflict-safely, hibernate — even when the command fails, and without a failed
 * hibernate hiding the command's result.
 */
import { isSatchelError } from '@satchel/client/errors.js';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import type { Snapshot } from '@satchel/client/schemas/past.js';
import type { SyncReport } from '@satchel/client/schemas/sync.js';
import { type SyncProgress, syncOnce } from '@satchel/client/sync/sync.js';
import type { SyncTree } from '@satchel/client/sync/tree.js';
import type { BootKind, ExecOptions, SandboxHandle, SandboxProvider } from './provider.js';
import {
  filePattern,
  recordTemplateFiles,
  type TemplateFile,
  templateFiles,
  untouchedTemplateFiles,
} from './template.js';

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
  /**
   * Name a snapshot of the workspace as the command found it (after the restore, before its
   * results are saved), so the run can be read as it was before, or undone since
   * (`undo({since: name})`). Off unless given.
   */
  readonly snapshot?: string;
  /** Called between phases: `start`, `restore`, `run`, `save`, `hibernate`. */
  readonly onPhase?: (phase: string, handle: SandboxHandle | null) => void;
  readonly onProgress?: (progress: SyncProgress) => void;
}

export interface SandboxRunResult {
  readonly sandbox: string;
  readonly boot: BootKind;
  readonly restore: SyncReport;
  /** The snapshot taken before the command ran, when `snapshot` was given. */
  readonly snapshot?: Snapshot;
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
 * The template's files to keep out of sync, as exclude patterns: those still as the template
 * left them (template.ts), re-recorded so a file the agent changed stays the agent's. On the
 * first run after a fork, a template file the workspace also has is removed from the tree, so
 * the restore brings the workspace's version instead of a conflict.
 */
async function templateExcludes(
  options: SandboxRunOptions,
  tree: SyncTree,
  forked: boolean,
): Promise<string[]> {
  let files = await templateFiles(tree);
  if (files.length === 0) return [];
  if (forked) {
    const ours: TemplateFile[] = [];
    for (const file of files) {
      const inWorkspace = await options.satchel
        .stat(options.workspace, `/${file.path}`)
        .then(() => true)
        .catch(() => false);
      if (inWorkspace) await tree.remove(file.path);
      else ours.push(file);
    }
    files = ours;
  }
  const untouched = untouchedTemplateFiles(files, await tree.list((dir) => dir === '.git'));
  if (forked || untouched.length !== files.length) await recordTemplateFiles(tree, untouched);
  return untouched.map((file) => filePattern(file.path));
}

/** Runs `command` in a sandbox between a restore and a save of `workspace`. */
export async function runInSandbox(options: SandboxRunOptions): Promise<SandboxRunResult> {
  const { provider, satchel, workspace } = options;
  options.onPhase?.('start', null);
  const handle = await start(options);
  let result: Omit<SandboxRunResult, 'hibernateError'>;
  try {
    const exclude = [
      ...(options.exclude ?? []),
      ...(await templateExcludes(options, handle.tree, handle.boot === 'new')),
    ];
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
    const snapshot =
      options.snapshot === undefined
        ? undefined
        : await satchel.createSnapshot(workspace, options.snapshot, {
            message: `before ${options.command.join(' ').slice(0, 200)} in sandbox ${handle.id}`,
            ...(options.session === undefined ? {} : { session: options.session }),
          });
    options.onPhase?.('run', handle);
    const { exitCode } = await handle.exec(options.command, options);
    options.onPhase?.('save', handle);
    // Asked again: a template file the command changed is the agent's work, saved like any.
    const saveExclude = [
      ...(options.exclude ?? []),
      ...(await templateExcludes(options, handle.tree, false)),
    ];
    const save = await syncOnce({
      ...sync,
      ...(saveExclude.length === 0 ? {} : { exclude: saveExclude }),
    });
    result = {
      sandbox: handle.id,
      boot: handle.boot,
      restore,
      ...(snapshot === undefined ? {} : { snapshot }),
      exitCode,
      save,
    };
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
