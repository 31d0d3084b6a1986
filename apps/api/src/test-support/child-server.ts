/** Starts serve-child.ts in a child process and hands back its URL, key and a way to kill it. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./serve-child.ts', import.meta.url));
const API_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface ChildServer {
  readonly url: string;
  readonly key: string;
  readonly process: ChildProcess;
  /** SIGKILL: no graceful shutdown, as when a sandbox host dies. Resolves once it exited. */
  kill(): Promise<void>;
}

export async function startChildServer(data: string): Promise<ChildServer> {
  // node itself (not the tsx wrapper, which would outlive a kill in a process of its own).
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, data], {
    cwd: API_DIR,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  const { url, key } = JSON.parse(line) as { url: string; key: string };
  return {
    url,
    key,
    process: child,
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}
