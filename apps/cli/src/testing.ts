/**
 * Test harness: runs the CLI in-process on a real temp data directory, capturing its output.
 *
 * With `SATCHEL_CLI_TARGET=remote` (the `remote` vitest project) the same tests run against a
 * live server instead: each harness serves its data directory on 127.0.0.1 and every command
 * talks to it through SATCHEL_URL, as the admin or, for `--as KEY`, with SATCHEL_TOKEN=KEY.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { type RunningServer, serve } from '@satchel/api';
import { openSatchel, type SatchelEngine } from '@satchel/core';
import { run } from './program.js';

/** True when this run's CLI commands go to a live server (the `remote` test project). */
export const REMOTE_TARGET = process.env.SATCHEL_CLI_TARGET === 'remote';

interface LiveServer {
  readonly engine: SatchelEngine;
  readonly server: RunningServer;
  readonly adminKey: string;
}

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
  private constructor(
    readonly dir: string,
    private readonly live: LiveServer | null,
  ) {}

  static async create(): Promise<TestCli> {
    const dir = await mkdtemp(join(tmpdir(), 'satchel-cli-'));
    if (!REMOTE_TARGET) return new TestCli(dir, null);
    const engine = await openSatchel({ data: join(dir, 'data') });
    const server = await serve(engine, { port: 0, api: { logFault: () => undefined } });
    return new TestCli(dir, { engine, server, adminKey: engine.createdAdminKey ?? '' });
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
    const target = this.target(argv, options.env ?? {});
    const code = await run(target.argv, {
      stdout,
      stderr,
      stdin,
      env: target.env,
      cwd: this.dir,
      isTTY: options.isTTY ?? false,
    });
    const bytes = out();
    return { code, stdout: bytes.toString('utf8'), stderr: err().toString('utf8'), bytes };
  }

  /** Locally: argv as given. Remotely: the server's URL, and `--as KEY` becomes SATCHEL_TOKEN. */
  private target(
    argv: readonly string[],
    env: Record<string, string | undefined>,
  ): { argv: readonly string[]; env: Record<string, string | undefined> } {
    const local = { SATCHEL_DATA: this.data, ...env };
    // Tests that choose their own target (a data directory or a server) get exactly that.
    if (this.live === null || 'SATCHEL_URL' in env || argv.includes('--data')) {
      return { argv, env: local };
    }
    const rest = [...argv];
    let token = this.live.adminKey;
    const as = rest.indexOf('--as');
    if (as !== -1 && as + 1 < rest.length) {
      token = rest[as + 1] ?? token;
      rest.splice(as, 2);
    }
    return {
      argv: rest,
      env: { ...local, SATCHEL_URL: this.live.server.url, SATCHEL_TOKEN: token },
    };
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
    if (this.live !== null) {
      await this.live.server.close();
      await this.live.engine.close();
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}
