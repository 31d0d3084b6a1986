/**
 * `satchel sandbox run`: an agent command in a sandbox between a restore and a save of the
 * workspace (core's runInSandbox); `sandbox ls|rm|reset` manage local sandboxes.
 */
import { join } from 'node:path';
import type { LocalSandboxProvider, SandboxProvider, SandboxRunResult } from '@satchel/core';
import { type Command, Option } from 'commander';
import type { Context, Invocation } from '../context.js';
import { EXIT_CODES, usageError } from '../errors.js';
import { examples } from '../format.js';
import { summary } from './sync.js';

interface RunFlags {
  readonly provider: 'local' | 'codesandbox';
  readonly template?: string;
  readonly sandbox?: string;
  /** `--snapshot` alone: true (a name is made up); `--snapshot NAME`: that name. */
  readonly snapshot?: string | true;
}

/** The snapshot's name for `--snapshot [NAME]`: NAME, else `before-run-<UTC time>`. */
export function snapshotName(flag: string | true, now = new Date()): string {
  if (flag !== true) return flag;
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `before-run-${stamp}`;
}

async function localProvider(run: Invocation): Promise<LocalSandboxProvider> {
  const { LocalSandboxProvider } = await import('@satchel/core');
  return new LocalSandboxProvider(join(run.dataDir(), 'sandboxes'));
}

async function providerOf(
  run: Invocation,
  ctx: Context,
  flags: RunFlags,
): Promise<SandboxProvider> {
  if (flags.provider === 'local') return localProvider(run);
  const key = ctx.env.csbApiKey;
  if (key === undefined) {
    throw usageError(
      'the codesandbox provider needs CSB_API_KEY',
      'create a key at https://codesandbox.io/t/api and export CSB_API_KEY',
    );
  }
  const { codeSandboxProvider } = await import('@satchel/core');
  return codeSandboxProvider(key);
}

function told(run: Invocation, result: SandboxRunResult): void {
  run.note(
    `sandbox ${result.sandbox} (${result.boot}): restore — ${summary(result.restore, 'sandbox')}`,
  );
  if (result.snapshot !== undefined) {
    const { name, seq } = result.snapshot;
    run.note(
      `snapshot ${name} (seq ${seq}) before the command: take the run back with ` +
        `satchel undo --since ${name} --apply`,
    );
  }
  run.note(`sandbox ${result.sandbox}: command exited ${result.exitCode}`);
  run.note(`sandbox ${result.sandbox}: save — ${summary(result.save, 'sandbox')}; hibernated`);
  for (const c of [...result.restore.conflicts, ...result.save.conflicts]) {
    run.note(
      `conflict ${c.path}: the workspace version is at the path, the sandbox's is ${c.keptAs}`,
    );
  }
  run.note(`resume it with --sandbox ${result.sandbox}`);
}

export function registerSandboxCommands(program: Command, ctx: Context): void {
  const sandbox = program
    .command('sandbox')
    .description('run agent commands in sandboxes that keep their files in a workspace')
    .summary('run commands in sandboxes');

  const runCmd = sandbox
    .command('run')
    .description(
      'create a sandbox (or resume --sandbox ID), restore the workspace into it (a clean boot is ' +
        'rehydrated, nothing deleted), run COMMAND there, sync its results back conflict-safely ' +
        'and hibernate. Exits with the command’s code, else 4 if the save kept conflicts.',
    )
    .summary('run a command in a sandbox with the workspace restored')
    .argument('<command...>', 'the command and its arguments (after --)')
    .addOption(
      new Option('--provider <name>', 'where the sandbox runs')
        .choices(['local', 'codesandbox'])
        .default('local'),
    )
    .option('--template <id>', 'codesandbox: the template sandbox to fork (default: the SDK’s)')
    .option('--sandbox <id>', 'resume this sandbox (local: created with this id if missing)')
    .option(
      '--snapshot [name]',
      'name a snapshot of the workspace before the command runs (default name: before-run-TIME), ' +
        'to read it as it was or undo the run with undo --since NAME',
    )
    .action(async (command: string[], flags: RunFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const workspace = run.workspace();
      const provider = await providerOf(run, ctx, flags);
      const satchel = await run.satchel();
      const session = run.call().session;
      const { runInSandbox } = await import('@satchel/core');
      const result = await runInSandbox({
        provider,
        satchel,
        workspace,
        command,
        ...(flags.sandbox === undefined ? {} : { sandbox: flags.sandbox }),
        ...(flags.template === undefined ? {} : { template: flags.template }),
        ...(flags.snapshot === undefined ? {} : { snapshot: snapshotName(flags.snapshot) }),
        ...(session === undefined ? {} : { session }),
        // With --json, stdout carries the result only.
        stdout: run.json ? run.io.stderr : run.io.stdout,
        stderr: run.io.stderr,
        onPhase: (phase, handle) => {
          if (!run.json && phase === 'run' && handle)
            run.note(`sandbox ${handle.id} (${handle.boot}): running ${command.join(' ')}`);
        },
      });
      if (run.json) run.printJson(result);
      else told(run, result);
      const conflicts = result.save.conflicts.length + result.restore.conflicts.length;
      run.exitCode =
        result.exitCode !== 0 ? result.exitCode : conflicts > 0 ? EXIT_CODES.CONFLICT : 0;
    });
  examples(runCmd, [
    'satchel sandbox run -w demo --sandbox agent-1 -- sh -c "date >> log.txt"',
    'satchel sandbox run -w demo --snapshot before-run-7 -- node agent.js',
    'CSB_API_KEY=… satchel sandbox run --provider codesandbox -w demo -- node agent.js',
  ]);

  const ls = sandbox
    .command('ls')
    .description('list the local sandboxes (directories under DATA/sandboxes)')
    .action(async (_flags: object, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ids = await (await localProvider(run)).list();
      if (run.json) run.printJson(ids);
      else run.lines(ids);
    });

  const reset = sandbox
    .command('reset')
    .description('empty a local sandbox, as a clean boot after a lost snapshot would')
    .argument('<id>')
    .action(async (id: string, _flags: object, cmd: Command) => {
      const run = ctx.invocation(cmd);
      await (await localProvider(run)).reset(id);
      run.out(`reset sandbox ${id}`);
    });

  const rm = sandbox
    .command('rm')
    .description('delete a local sandbox and its files (the workspace keeps everything synced)')
    .argument('<id>')
    .action(async (id: string, _flags: object, cmd: Command) => {
      const run = ctx.invocation(cmd);
      await (await localProvider(run)).destroy(id);
      run.out(`removed sandbox ${id}`);
    });
  examples(ls, ['satchel sandbox ls', 'satchel sandbox ls --json']);
  examples(reset, ['satchel sandbox reset agent-1']);
  examples(rm, ['satchel sandbox rm agent-1']);
}
