/** The `satchel` command line: builds the commander program and runs it to an exit code. */
import { createRequire } from 'node:module';
import { Command, CommanderError, Option } from 'commander';
import { registerAuditCommands } from './commands/audit.js';
import { registerCommentCommands, registerShareCommands } from './commands/comments.js';
import { registerDataCommands } from './commands/data.js';
import { registerFileCommands } from './commands/files.js';
import { registerForkCommands } from './commands/forks.js';
import { registerGcCommand } from './commands/gc.js';
import { registerHistoryCommands } from './commands/history.js';
import { registerInvitationCommands } from './commands/invitations.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerLockCommands } from './commands/locks.js';
import { registerLoginLinkCommand } from './commands/login-link.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerMemberCommands } from './commands/members.js';
import { registerMigrateCommand } from './commands/migrate.js';
import { registerSandboxCommands } from './commands/sandbox.js';
import { registerSearchCommands } from './commands/search.js';
import { registerServeCommand } from './commands/serve.js';
import { registerSnapshotCommands } from './commands/snapshots.js';
import { registerSyncCommands } from './commands/sync.js';
import { registerTransferCommands } from './commands/transfers.js';
import { registerTreeCommands } from './commands/tree.js';
import { registerUndoCommand } from './commands/undo.js';
import { registerWebhookCommands } from './commands/webhooks.js';
import { registerWorkspaceCommands } from './commands/workspaces.js';
import { Context, type Io } from './context.js';
import { describeError, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, isBrokenPipe } from './errors.js';
import { examples } from './format.js';
import { registerTerminalUi } from './tui/command.js';

export type { Io } from './context.js';

// src/ and dist/ both sit one level below the package root.
const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

function globalOptions(): Option[] {
  return [
    new Option('--data <dir>', 'data directory (default: SATCHEL_DATA, else ./.satchel)'),
    new Option('-w, --workspace <name>', 'workspace to use (default: SATCHEL_WORKSPACE)'),
    new Option('--session <name>', 'session label stored on versions (default: SATCHEL_SESSION)'),
    new Option('--json', 'print machine-readable JSON on stdout'),
    new Option('--as <key>', 'act as the principal of this API key (default: the admin)'),
  ];
}

function leaves(cmd: Command): Command[] {
  return cmd.commands.length === 0 ? [cmd] : cmd.commands.flatMap(leaves);
}

/**
 * The program, writing to `io` and never exiting the process: commander errors are thrown as
 * CommanderError (see `run`). Commands share `context`, which owns the engine they open.
 */
export function buildProgram(io: Io, context: Context = new Context(io)): Command {
  const colors = io.isTTY && !context.env.noColor;
  const program = new Command('satchel')
    .description('Persistent, shared, versioned workspaces for agents and people.')
    .version(version, '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHelpWidth: () => 100,
      getErrHelpWidth: () => 100,
      getOutHasColors: () => colors,
      getErrHasColors: () => false,
    })
    .showHelpAfterError('(add --help for usage)')
    // Global options are also accepted after the command (`satchel ls -w demo`); positional
    // parsing keeps the root's --version from swallowing `cat --version N`.
    .enablePositionalOptions();
  for (const option of globalOptions()) program.addOption(option);
  examples(program, [
    'satchel status',
    'satchel ws create demo',
    'satchel put report.pdf -w demo',
    'SATCHEL_WORKSPACE=demo satchel ls -r',
    'satchel put notes.md -w demo --as "$(cat agent.key)"',
  ]);

  registerDataCommands(program, context);
  registerWorkspaceCommands(program, context);
  registerTreeCommands(program, context);
  registerFileCommands(program, context);
  registerHistoryCommands(program, context);
  registerSnapshotCommands(program, context);
  registerCommentCommands(program, context);
  registerShareCommands(program, context);
  registerUndoCommand(program, context);
  registerForkCommands(program, context);
  registerLockCommands(program, context);
  registerKeyCommands(program, context);
  registerMemberCommands(program, context);
  registerInvitationCommands(program, context);
  registerTransferCommands(program, context);
  registerLoginLinkCommand(program, context);
  registerWebhookCommands(program, context);
  registerAuditCommands(program, context);
  registerGcCommand(program, context);
  registerSearchCommands(program, context);
  registerSyncCommands(program, context);
  registerSandboxCommands(program, context);
  registerServeCommand(program, context);
  registerMigrateCommand(program, context);
  registerTerminalUi(program, context);
  registerMcpCommand(program, context);

  for (const leaf of leaves(program)) {
    // A command may give a global flag its own meaning (`undo --session` names what to undo).
    for (const option of globalOptions()) {
      if (leaf.options.every((own) => own.long !== option.long)) leaf.addOption(option);
    }
  }
  return program;
}

/**
 * Runs the CLI on `argv` (without node and script) and resolves to the exit code; never calls
 * `process.exit`. Errors are printed to `io.stderr` as one line plus an optional hint.
 */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const context = new Context(io);
  const program = buildProgram(io, context);
  let code: number;
  try {
    // Bare `satchel` opens the terminal UI on a terminal, else prints the help (tui/command.ts).
    await program.parseAsync([...argv], { from: 'user' });
    code = context.exitCode;
  } catch (error) {
    code = report(error, context, io);
  }
  try {
    await context.close();
  } catch (error) {
    const closing = report(error, context, io);
    if (code === EXIT_OK) code = closing;
  }
  return code;
}

function report(error: unknown, context: Context, io: Io): number {
  // Commander already printed its message (or the help / version).
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  if (isBrokenPipe(error)) return context.exitCode;
  const { exitCode, lines } = describeError(
    error,
    context.command,
    context.env.debug,
    context.isRemote,
  );
  io.stderr.write(`${lines.join('\n')}\n`);
  return exitCode === EXIT_OK ? EXIT_INTERNAL : exitCode;
}
