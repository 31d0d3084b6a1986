/**
 * Bare `satchel`: the terminal UI when stdin and stdout are terminals, the help otherwise.
 * `-w NAME` (or SATCHEL_WORKSPACE) opens that workspace's files directly.
 */
import type { Command } from 'commander';
import type { Context } from '../context.js';

/** Commander's own "unknown command" error (with its did-you-mean), for words after `satchel`. */
function unknownCommand(cmd: Command, word: string): never {
  const own = (cmd as unknown as { unknownCommand?: () => never }).unknownCommand;
  if (typeof own === 'function') own.call(cmd);
  return cmd.error(`error: unknown command '${word}'`, {
    code: 'commander.unknownCommand',
    exitCode: 1,
  });
}

export function registerTerminalUi(program: Command, ctx: Context): void {
  program
    .usage('[options] [command]')
    // Collects stray words so they can be reported as an unknown command (not "too many
    // arguments"); no description, so help lists no arguments.
    .argument('[command...]')
    .action(async (words: string[], _flags: unknown, cmd: Command) => {
      const [word] = words;
      if (word !== undefined) unknownCommand(cmd, word);
      const run = ctx.invocation(cmd);
      if (!run.io.isTTY || run.io.stdinIsTTY !== true) {
        cmd.outputHelp();
        return;
      }
      const satchel = await run.satchel();
      // Loaded on demand: only the terminal UI needs React and Ink.
      const { runTui } = await import('./run-tui.js');
      await runTui(satchel, run.io, {
        workspace: run.globals.workspace ?? ctx.env.workspace,
        color: !ctx.env.noColor,
        where: run.serverUrl() ?? run.dataDir(),
      });
    });
}
