/**
 * What every command gets: the streams, the environment, global options and a lazily opened
 * Satchel: the engine on the data directory, acting as its admin or, with `--as KEY`, as that
 * key's principal; or, with SATCHEL_URL, a RemoteSatchel acting as SATCHEL_TOKEN's principal.
 */
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
// Types only: the engine (@satchel/core) and the HTTP client are imported when a command first
// needs one, so `--help`, `--version` and usage errors load neither, and a run against a server
// loads no engine.
import type { RemoteSatchel } from '@satchel/client/remote/remote-satchel.js';
import type {
  CallOptions,
  ChatProvider,
  EmbeddingProvider,
  OpenAiCompatibleOptions,
  Satchel,
  SatchelEngine,
} from '@satchel/core';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type CliEnv, type ProviderEnv, readEnv } from './env.js';
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
  /** True when stderr is a terminal (progress bars are drawn only then); absent: false. */
  readonly stderrIsTTY?: boolean;
  /** True when stdin is a terminal (bare `satchel` opens the terminal UI only then). */
  readonly stdinIsTTY?: boolean;
  /**
   * Resolves with the signal's name when the process is asked to stop (SIGINT, SIGTERM). Only
   * long-running commands (`serve`) call it, so every other command keeps the signals' default
   * behaviour; absent where nothing can stop the run.
   */
  readonly untilStopped?: () => Promise<string>;
  /**
   * Asks the process to keep its heap close to what is live, for a command that holds a record
   * per file of a large tree (`sync`, once it moves 20,000 files or more, and `sync --watch`);
   * absent where the process is not the command's own.
   */
  readonly compactHeap?: () => void;
}

/** Options every command accepts (declared on the root program). */
export interface GlobalOptions {
  readonly data?: string;
  readonly workspace?: string;
  readonly session?: string;
  readonly json?: boolean;
  /** An API key: act as its principal, within its narrowing. */
  readonly as?: string;
}

/** Commander argument parser for counts, versions and limits: exit 2 on anything else. */
export function positiveInt(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError('must be a positive integer');
  return n;
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Commander parser for durations: `90`, `90s`, `15m`, `12h`, `30d` → seconds; exit 2 otherwise. */
export function durationSeconds(value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  const n = match ? Number(match[1]) * (UNIT_SECONDS[match[2] || 's'] ?? Number.NaN) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('must be a duration like 90, 90s, 15m, 12h or 30d');
  }
  return n;
}

/** `--lock-token T`, accepted by every command that changes files. */
export function lockTokenOption(): Option {
  return new Option(
    '--lock-token <token>',
    'fencing token of a lock you hold on the path (see `satchel lock`)',
  ).argParser(positiveInt);
}

/** `ws rm`, `ls`: the command's name with its parents below the root, for hints. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Copies a byte stream to `out`, honouring backpressure; returns the number of bytes. */
export async function copyTo(
  source: AsyncIterable<Uint8Array | string>,
  out: Writable,
): Promise<number> {
  let bytes = 0;
  for await (const piece of source) {
    bytes += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength;
    if (!out.write(piece)) await once(out, 'drain');
  }
  return bytes;
}

/**
 * The search providers the environment configures (SATCHEL_EMBEDDINGS_*, SATCHEL_LLM_*): none
 * unless a URL is set, so nothing leaves the machine by default. INVALID_INPUT (exit 2) for a
 * URL without a model.
 */
export async function searchProviders(env: CliEnv): Promise<{
  embeddings?: EmbeddingProvider;
  llm?: ChatProvider;
}> {
  if (env.embeddings === undefined && env.llm === undefined) return {};
  const { OpenAiChat, OpenAiEmbeddings } = await import('@satchel/core');
  const options = (p: ProviderEnv, prefix: string): OpenAiCompatibleOptions => {
    if (p.model === undefined) {
      throw usageError(
        `${prefix}_URL is set but ${prefix}_MODEL is not`,
        `set ${prefix}_MODEL to the model to use at ${p.url}`,
      );
    }
    return { url: p.url, model: p.model, ...(p.key === undefined ? {} : { apiKey: p.key }) };
  };
  return {
    ...(env.embeddings === undefined
      ? {}
      : { embeddings: new OpenAiEmbeddings(options(env.embeddings, 'SATCHEL_EMBEDDINGS')) }),
    ...(env.llm === undefined ? {} : { llm: new OpenAiChat(options(env.llm, 'SATCHEL_LLM')) }),
  };
}

/** One run of the CLI: owns the engine it opens, closed by `close()`. */
export class Context {
  readonly env: CliEnv;
  /** The command being run, for error hints ("" before one is chosen). */
  command = '';
  /** Set by commands that succeed but report a finding (fsck). */
  exitCode = 0;
  #engine: Promise<SatchelEngine> | null = null;
  #remote: RemoteSatchel | null = null;
  #adminKeyTold = false;

  constructor(readonly io: Io) {
    this.env = readEnv(io.env);
  }

  /** True once the run has talked to a server (SATCHEL_URL) rather than a data directory. */
  get isRemote(): boolean {
    return this.#remote !== null;
  }

  /** Resolves the global options of the command being run. */
  invocation(cmd: Command): Invocation {
    this.command = commandPath(cmd);
    return new Invocation(this, cmd.optsWithGlobals<GlobalOptions>());
  }

  /**
   * Opens the engine once, on first use, so `--help` and usage errors never touch the disk.
   * `webhookAllow` (default SATCHEL_WEBHOOK_ALLOW) is the SSRF allow-list webhooks are checked with.
   */
  engine(
    dataDir: string,
    webhookAllow = this.env.webhookAllow,
    databaseUrl = this.env.databaseUrl,
    blobs = this.env.blobs,
  ): Promise<SatchelEngine> {
    this.#engine ??= (async () => {
      const { blobsConfig, databaseUrlConfig, openSatchel, parseWebhookKey } = await import(
        '@satchel/core'
      );
      return openSatchel({
        data: dataDir,
        ...(await searchProviders(this.env)),
        ...(webhookAllow === undefined ? {} : { webhookAllow }),
        ...(this.env.publicUrl === undefined
          ? {}
          : { transfers: { publicUrl: this.env.publicUrl } }),
        ...(this.env.webhookKey === undefined
          ? {}
          : { webhookKey: parseWebhookKey(this.env.webhookKey, 'SATCHEL_WEBHOOK_KEY') }),
        // Metadata in PostgreSQL when a database URL is given, content in S3 (or another
        // directory) when SATCHEL_BLOBS is; otherwise both in `dataDir`.
        stores: {
          ...(databaseUrl === undefined ? {} : { metadata: databaseUrlConfig(databaseUrl) }),
          ...(blobs === undefined ? {} : { blobs: blobsConfig(blobs, this.io.env) }),
        },
      });
    })();
    return this.#engine;
  }

  /**
   * The client of the server at `url`, made once, acting as SATCHEL_TOKEN's principal;
   * INVALID_INPUT (exit 2) when SATCHEL_TOKEN is not set.
   */
  async remote(url: string): Promise<RemoteSatchel> {
    if (this.#remote === null) {
      const token = this.env.token;
      if (token === undefined) {
        throw usageError(
          'SATCHEL_URL is set but SATCHEL_TOKEN is not',
          'set SATCHEL_TOKEN to an API key of that server (an admin makes one with `satchel keys create`)',
        );
      }
      const { RemoteSatchel } = await import('@satchel/client/remote/remote-satchel.js');
      this.#remote ??= new RemoteSatchel({ url, token });
    }
    return this.#remote;
  }

  /**
   * The admin key if this run created it (first start), the first time it is asked for, else
   * null: whoever asks first (`status`, or the note of any other command) tells it, once.
   */
  takeCreatedAdminKey(engine: SatchelEngine): string | null {
    if (this.#adminKeyTold) return null;
    this.#adminKeyTold = true;
    return engine.createdAdminKey;
  }

  async close(): Promise<void> {
    await this.#remote?.close();
    this.#remote = null;
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

  /**
   * The server this run talks to: SATCHEL_URL, unless `--data` names a data directory on the
   * command line; null when the run works on a data directory.
   */
  serverUrl(): string | null {
    return this.globals.data === undefined ? (this.ctx.env.url ?? null) : null;
  }

  /** Absolute data directory: `--data`, else SATCHEL_DATA, else `./.satchel`, from the cwd. */
  dataDir(): string {
    return resolve(this.ctx.io.cwd, this.globals.data ?? this.ctx.env.data);
  }

  /** The engine itself, acting as the data directory's admin (whatever `--as` says). */
  engine(): Promise<SatchelEngine> {
    return this.ctx.engine(this.dataDir());
  }

  /** Where the admin key of the data directory is kept. */
  async adminKeyFile(): Promise<string> {
    const { ADMIN_KEY_FILE } = await import('@satchel/core');
    return join(this.dataDir(), ADMIN_KEY_FILE);
  }

  /**
   * The admin key, when this run created it and nobody has shown it yet (see `status`); always
   * null with a server, whose admin key is its own business.
   */
  async takeCreatedAdminKey(): Promise<string | null> {
    if (this.serverUrl() !== null) return null;
    return this.ctx.takeCreatedAdminKey(await this.engine());
  }

  /**
   * The engine acting as whoever runs the command: the admin, or with `--as KEY` the key's
   * principal (UNAUTHENTICATED, exit 5, if the key is unknown, revoked or expired). On a first
   * start the admin key was just created; a note on stderr says where it is. With a server
   * (`serverUrl()`), the RemoteSatchel acting as SATCHEL_TOKEN's principal; `--as` is then a
   * usage error (exit 2), and a server that cannot be reached fails its first call (exit 1).
   */
  async satchel(): Promise<Satchel> {
    const url = this.serverUrl();
    if (url !== null) {
      if (this.globals.as !== undefined) {
        throw usageError(
          '--as works on a local data directory, not with SATCHEL_URL',
          'set SATCHEL_TOKEN to the key to act as',
        );
      }
      return this.ctx.remote(url);
    }
    const engine = await this.engine();
    if (this.ctx.takeCreatedAdminKey(engine) !== null) {
      this.note(
        `note: first start: created the admin key, saved in ${await this.adminKeyFile()} (mode 0600)`,
      );
    }
    const key = this.globals.as;
    return key === undefined ? engine : engine.as(await engine.authenticate(key));
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
