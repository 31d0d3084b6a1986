/** Test harness: runs the CLI in-process on a real temp data directory, capturing its output. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from './program.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout as bytes, for binary content. */
  readonly bytes: Buffer;
}

export interface RunOptions {
  readonly stdin?: string | Buffer;
  readonly env?: Record<string, string | undefined>;
  readonly isTTY?: boolean;
}

function capture(stream: PassThrough): () => Buffer {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks);
}

/** A scratch directory (cwd of the CLI) holding the data directory `data/`. */
export class TestCli {
  private constructor(readonly dir: string) {}

  static async create(): Promise<TestCli> {
    return new TestCli(await mkdtemp(join(tmpdir(), 'satchel-cli-')));
  }

  get data(): string {
    return join(this.dir, 'data');
  }

  async run(argv: readonly string[], options: RunOptions = {}): Promise<CliResult> {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const stdin = new PassThrough();
    const out = capture(stdout);
    const err = capture(stderr);
    stdin.end(options.stdin ?? '');
    const code = await run(argv, {
      stdout,
      stderr,
      stdin,
      env: { SATCHEL_DATA: this.data, ...options.env },
      cwd: this.dir,
      isTTY: options.isTTY ?? false,
    });
    const bytes = out();
    return { code, stdout: bytes.toString('utf8'), stderr: err().toString('utf8'), bytes };
  }

  /**
   * Creates principal `name` and a key for it (narrowed by `keyFlags`, e.g. `['--read-only']`)
   * as the admin, and returns the key, for `--as`.
   */
  async principal(name: string, keyFlags: readonly string[] = []): Promise<string> {
    const created = await this.run(['principals', 'create', name]);
    if (created.code !== 0) throw new Error(`principals create ${name}: ${created.stderr}`);
    const key = await this.run(['keys', 'create', '--principal', name, ...keyFlags]);
    if (key.code !== 0) throw new Error(`keys create ${name}: ${key.stderr}`);
    return key.stdout.trim();
  }

  /** Runs with `-w ws` appended. */
  in(ws: string, argv: readonly string[], options?: RunOptions): Promise<CliResult> {
    return this.run([...argv, '-w', ws], options);
  }

  async dispose(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
