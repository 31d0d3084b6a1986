/** What every command gets: the streams, the environment, global options and a lazily opened engine. */
import { once } from 'node:events';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { type CallOptions, openSatchel, type Satchel } from '@satchel/core';
import { type Command, InvalidArgumentError } from 'commander';
import { type CliEnv, readEnv } from './env.js';
import { usageError } from './errors.js';
import { toJson } from './format.js';

/** The process seen by the CLI; tests pass PassThrough streams and a plain env object. */
export interface Io {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** True when stdout is a terminal (colour is used only then). */
  readonly isTTY: boolean;
}

/** Options every command accepts (declared on the root program). */
export interface GlobalOptions {
  readonly data?: string;
  readonly workspace?: string;
  readonly session?: string;
  readonly json?: boolean;
}

/** Commander argument parser for counts, versions and limits: exit 2 on anything else. */
export function positiveInt(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/** `ws rm`, `ls`: the command's name with its parents below the root, for hints. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Copies a byte stream to `out`, honouring backpressure; returns the number of bytes. */
export async function copyTo(source: AsyncIterable<Uint8Array>, out: Writable): Promise<number> {
  let bytes = 0;
  for await (const piece of source) {
    bytes += piece.byteLength;
    if (!out.write(piece)) await once(out, 'drain');
  }
  return bytes;
}

/** One run of the CLI: owns the engine it opens, closed by `close()`. */
export class Context {
  readonly env: CliEnv;
  /** The command being run, for error hints ("" before one is chosen). */
  command = '';
  /** Set by commands that succeed but report a finding (fsck). */
  exitCode = 0;
  #engine: Promise<Satchel> | null = null;

  constructor(readonly io: Io) {
    this.env = readEnv(io.env);
  }

  /** Resolves the global options of the command being run. */
  invocation(cmd: Command): Invocation {
    this.command = commandPath(cmd);
    return new Invocation(this, cmd.optsWithGlobals<GlobalOptions>());
  }

  /** Opens the engine once, on first use, so `--help` and usage errors never touch the disk. */
  engine(dataDir: string): Promise<Satchel> {
    this.#engine ??= openSatchel({ data: dataDir });
    return this.#engine;
  }

  async close(): Promise<void> {
    const engine = this.#engine;
    this.#engine = null;
    if (!engine) return;
    // An engine that failed to open has nothing to close; its error was already reported.
    const satchel = await engine.catch(() => null);
    await satchel?.close();
  }
}

/** A command's view of the run: its global options resolved against the environment. */
export class Invocation {
  constructor(
    private readonly ctx: Context,
    readonly globals: GlobalOptions,
  ) {}

  get io(): Io {
    return this.ctx.io;
  }

  get json(): boolean {
    return this.globals.json === true;
  }

  get color(): boolean {
    return this.ctx.io.isTTY && !this.ctx.env.noColor;
  }

  set exitCode(code: number) {
    this.ctx.exitCode = code;
  }

  /** Absolute data directory: `--data`, else SATCHEL_DATA, else `./.satchel`, from the cwd. */
  dataDir(): string {
    return resolve(this.ctx.io.cwd, this.globals.data ?? this.ctx.env.data);
  }

  satchel(): Promise<Satchel> {
    return this.ctx.engine(this.dataDir());
  }

  /** The selected workspace: `-w`, else SATCHEL_WORKSPACE; INVALID_INPUT (exit 2) if neither. */
  workspace(): string {
    const name = this.globals.workspace ?? this.ctx.env.workspace;
    if (name === undefined || name === '') {
      throw usageError(
        'no workspace selected',
        'pass -w NAME or set SATCHEL_WORKSPACE (list them with `satchel ws ls`)',
      );
    }
    return name;
  }

  /** Options passed on every engine call: the session label, when one is set. */
  call(): CallOptions {
    const session = this.globals.session ?? this.ctx.env.session;
    return session === undefined ? {} : { session };
  }

  out(line: string): void {
    this.ctx.io.stdout.write(`${line}\n`);
  }

  lines(lines: readonly string[]): void {
    if (lines.length > 0) this.ctx.io.stdout.write(`${lines.join('\n')}\n`);
  }

  /** Notes for people (pagination, summaries) go to stderr so stdout stays data. */
  note(line: string): void {
    this.ctx.io.stderr.write(`${line}\n`);
  }

  printJson(value: unknown): void {
    this.ctx.io.stdout.write(toJson(value));
  }

  /** Tells how to fetch the next page of a listing, on stderr. */
  more(nextCursor: string | null, remaining: string): void {
    if (nextCursor !== null) this.note(`… ${remaining}; continue with --cursor ${nextCursor}`);
  }
}
