/**
 * Runs the terminal UI on the CLI's streams until `q` (or Ctrl-C): on the terminal's alternate
 * screen, so the shell's scrollback is left as it was.
 */
import type { Satchel } from '@satchel/core';
import { render } from 'ink';
import type { Io } from '../context.js';
import { App } from './app.js';

/** Switch to the alternate screen, cursor home, screen cleared. */
const ALTERNATE_SCREEN = '\u001b[?1049h\u001b[H\u001b[2J';
const MAIN_SCREEN = '\u001b[?1049l';

export interface TuiOptions {
  readonly workspace?: string;
  readonly color: boolean;
  readonly where: string;
}

/** Resolves when the user quits; the caller closes `satchel`. */
export async function runTui(satchel: Satchel, io: Io, options: TuiOptions): Promise<void> {
  const stdout = io.stdout as NodeJS.WriteStream;
  stdout.write(ALTERNATE_SCREEN);
  try {
    const app = render(
      <App
        satchel={satchel}
        workspace={options.workspace}
        color={options.color}
        where={options.where}
      />,
      {
        stdout,
        stdin: io.stdin as NodeJS.ReadStream,
        stderr: io.stderr as NodeJS.WriteStream,
        exitOnCtrlC: true,
        patchConsole: false,
      },
    );
    await app.waitUntilExit();
  } finally {
    stdout.write(MAIN_SCREEN);
  }
}
