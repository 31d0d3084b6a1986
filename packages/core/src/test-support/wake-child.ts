/** Test support: a wake-writer child process (another process on the same data directory). */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./wake-writer.ts', import.meta.url));
// `--import tsx` resolves from the working directory: the package that has tsx installed.
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface WakeChild {
  /** Sends one command and resolves with its answer line. */
  send(command: string): Promise<string>;
  /** Ends its stdin (it closes its engine) and waits for it to exit. */
  close(): Promise<void>;
}

/** Starts a child with an engine open on `data` (writing to `workspace`); resolves once ready. */
export async function startWakeChild(data: string, workspace = 'ws'): Promise<WakeChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, data, workspace], {
    cwd: PACKAGE_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const waiting: Array<(line: string) => void> = [];
  const early: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else early.push(line);
  });
  const answer = (): Promise<string> => {
    const line = early.shift();
    if (line !== undefined) return Promise.resolve(line);
    return Promise.race([
      new Promise<string>((resolve) => waiting.push(resolve)),
      exited.then(() => {
        throw new Error(`the child exited: ${stderr}`);
      }),
    ]);
  };
  const ready = await answer();
  if (ready !== 'ready') throw new Error(`the child said ${ready}: ${stderr}`);
  return {
    async send(command) {
      child.stdin.write(`${command}\n`);
      return answer();
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}
