/** `satchel serve`: the REST API over the data directory, until SIGINT or SIGTERM. */
import type { LogLevel, RateLimitOptions } from '@satchel/api';
import type { GcReport } from '@satchel/core';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type Context, durationSeconds, positiveInt } from '../context.js';
import { commaList } from '../env.js';
import { usageError } from '../errors.js';
import { examples } from '../format.js';
import { graceSeconds } from './gc.js';

/** Commander parser for ports: 0 (any free port) to 65535. */
function portNumber(value: string): number {
  const n = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 0 && n <= 65_535)) {
    throw new InvalidArgumentError('must be a port number from 0 to 65535');
  }
  return n;
}

function envPort(value: string): number {
  try {
    return portNumber(value);
  } catch {
    throw usageError(`invalid SATCHEL_PORT ${JSON.stringify(value)}`, 'use a port from 0 to 65535');
  }
}

const RATE_USAGE = 'use REQUESTS/WINDOW like 600/60s or 100/1m, or off';

/** Commander parser for `--rate-limit`: `600/60s`, `100/1m`, `off` (no limit). */
export function rateLimitSpec(value: string): RateLimitOptions | false {
  const spec = value.trim().toLowerCase();
  if (spec === 'off') return false;
  const match = /^(\d{1,9})\/(\w+)$/.exec(spec);
  const limit = Number(match?.[1]);
  if (match?.[2] === undefined || !(limit >= 1)) throw new InvalidArgumentError(RATE_USAGE);
  try {
    return { limit, windowSeconds: durationSeconds(match[2]) };
  } catch {
    throw new InvalidArgumentError(RATE_USAGE);
  }
}

const LOG_LEVELS: readonly LogLevel[] = [
  'trace',
  'debug',
  'info',
  'warn',
  'error',
  'fatal',
  'silent',
];

/** Commander parser for `--log-level`. */
function logLevel(value: string): LogLevel {
  const level = LOG_LEVELS.find((l) => l === value.trim().toLowerCase());
  if (level === undefined) {
    throw new InvalidArgumentError(`must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return level;
}

/** A setting from the environment, parsed like its flag; a bad value is a usage error naming it. */
function fromEnv<T>(name: string, value: string, parse: (v: string) => T): T {
  try {
    return parse(value);
  } catch (error) {
    const hint = error instanceof Error ? error.message : String(error);
    throw usageError(`invalid ${name} ${JSON.stringify(value)}`, hint);
  }
}

/** Errors of binding the port, as one clear line (exit 2) instead of an internal error. */
function bindError(error: unknown, host: string, port: number): unknown {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  if (code === 'EADDRINUSE') {
    return usageError(`${host}:${port} is already in use`, 'pass --port (or SATCHEL_PORT)');
  }
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    return usageError(`cannot listen on ${host}:${port} (${code})`, 'pass --host and --port');
  }
  return error;
}

interface ServeFlags {
  readonly port?: number;
  readonly host?: string;
  readonly rateLimit?: RateLimitOptions | false;
  readonly logLevel?: LogLevel;
  readonly webhookAllow?: string[];
  readonly headerTimeout?: number;
  readonly bodyIdleTimeout?: number;
  readonly maxUploads?: number;
  readonly allowedHosts?: string[];
  readonly databaseUrl?: string;
  readonly blobs?: string;
  readonly gcInterval?: number | false;
  readonly gcGrace?: number;
}

/** `--gc-interval`: a duration, or `off`. */
function gcInterval(value: string): number | false {
  return value.trim() === 'off' ? false : durationSeconds(value);
}

/** Bind addresses that name no host of their own: every interface. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** A flag's value, else its environment variable parsed like the flag, else undefined. */
function flagOrEnv<T>(
  flag: T | undefined,
  name: string,
  env: string | undefined,
  parse: (v: string) => T,
): T | undefined {
  if (flag !== undefined) return flag;
  return env === undefined ? undefined : fromEnv(name, env, parse);
}

export function registerServeCommand(program: Command, ctx: Context): void {
  const serve = program
    .command('serve')
    .description(
      'serve the REST API, MCP at /mcp and the web app for people at / (sign in with ' +
        '`satchel login-link`) on the data directory until SIGINT or SIGTERM, which let requests in ' +
        'flight finish before exiting; on the first start, print the admin key',
    )
    .summary('serve the REST API over HTTP')
    .addOption(
      new Option(
        '--port <port>',
        'port to listen on, 0 for any free one (default: SATCHEL_PORT, else 8787)',
      ).argParser(portNumber),
    )
    .addOption(
      new Option('--host <host>', 'address to listen on (default: SATCHEL_HOST, else 127.0.0.1)'),
    )
    .addOption(
      new Option(
        '--rate-limit <N/S|off>',
        'requests per API key per window, e.g. 600/60s, or off; admin keys are exempt ' +
          '(default: SATCHEL_RATE_LIMIT, else 6000/60s)',
      ).argParser(rateLimitSpec),
    )
    .addOption(
      new Option(
        '--log-level <level>',
        'JSON log lines on stdout from this level: trace, debug, info (one line per request), ' +
          'warn, error, fatal, silent (default: SATCHEL_LOG_LEVEL, else info)',
      ).argParser(logLevel),
    )
    .addOption(
      new Option(
        '--webhook-allow <list>',
        'comma-separated hosts, addresses and CIDRs webhooks may be delivered to although ' +
          'they are not public, e.g. 127.0.0.1,10.0.0.0/8 (default: SATCHEL_WEBHOOK_ALLOW)',
      ).argParser((value: string) => commaList(value) ?? []),
    )
    .addOption(
      new Option(
        '--header-timeout <duration>',
        'time a client has to send request headers, e.g. 30s; then 408 and the connection ' +
          'closes (default: SATCHEL_HEADER_TIMEOUT, else 30s)',
      ).argParser(durationSeconds),
    )
    .addOption(
      new Option(
        '--body-idle-timeout <duration>',
        'time a request body may pause between bytes, e.g. 60s; then 408, the connection ' +
          'closes and nothing is kept (default: SATCHEL_BODY_IDLE_TIMEOUT, else 60s)',
      ).argParser(durationSeconds),
    )
    .addOption(
      new Option(
        '--max-uploads <n>',
        'file uploads one API key may stream at once; more get 429 ' +
          '(default: SATCHEL_MAX_UPLOADS, else 32)',
      ).argParser(positiveInt),
    )
    .addOption(
      new Option(
        '--allowed-hosts <list>',
        'comma-separated host names (name or name:port) /mcp answers to besides loopback ones ' +
          'and --host, e.g. satchel.example.com (default: SATCHEL_ALLOWED_HOSTS)',
      ).argParser((value: string) => commaList(value) ?? []),
    )
    .addOption(
      new Option(
        '--database-url <url>',
        'keep metadata in this PostgreSQL database (postgres://user:password@host:port/db) ' +
          'instead of the data directory ' +
          '(default: SATCHEL_DATABASE_URL, else embedded SQLite)',
      ),
    )
    .addOption(
      new Option(
        '--gc-interval <duration|off>',
        'collect garbage (content no version refers to) this often, e.g. 1h, or off; on ' +
          'several nodes one runs at a time (default 1h)',
      ).argParser(gcInterval),
    )
    .addOption(
      new Option(
        '--gc-grace <duration>',
        'grace period of those runs: newer content is kept (default 1h)',
      ).argParser(graceSeconds),
    )
    .addOption(
      new Option(
        '--blobs <store>',
        'keep file content in this S3-compatible bucket (s3://bucket/prefix; endpoint, region ' +
          'and credentials from AWS_ENDPOINT_URL_S3, AWS_REGION, AWS_ACCESS_KEY_ID, …) or ' +
          'directory instead of <data>/blobs (default: SATCHEL_BLOBS)',
      ),
    )
    .action(async (flags: ServeFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const untilStopped = run.io.untilStopped;
      if (untilStopped === undefined) {
        throw usageError('serve runs until the process is stopped; run it as a process');
      }
      const port = flags.port ?? envPort(ctx.env.port);
      const host = flags.host ?? ctx.env.host;
      const envRate = ctx.env.rateLimit;
      const rateLimit =
        flags.rateLimit ??
        (envRate === undefined ? undefined : fromEnv('SATCHEL_RATE_LIMIT', envRate, rateLimitSpec));
      const envLevel = ctx.env.logLevel;
      const level =
        flags.logLevel ??
        (envLevel === undefined ? 'info' : fromEnv('SATCHEL_LOG_LEVEL', envLevel, logLevel));
      const bodyIdle = flagOrEnv(
        flags.bodyIdleTimeout,
        'SATCHEL_BODY_IDLE_TIMEOUT',
        ctx.env.bodyIdleTimeout,
        durationSeconds,
      );
      const maxUploads = flagOrEnv(
        flags.maxUploads,
        'SATCHEL_MAX_UPLOADS',
        ctx.env.maxUploads,
        positiveInt,
      );
      const headerTimeout = flagOrEnv(
        flags.headerTimeout,
        'SATCHEL_HEADER_TIMEOUT',
        ctx.env.headerTimeout,
        durationSeconds,
      );
      // Always the data directory (SATCHEL_URL names a server to talk to, not this one).
      // Webhooks are delivered by this server only, checked against this allow-list.
      const engine = await ctx.engine(
        run.dataDir(),
        flags.webhookAllow ?? ctx.env.webhookAllow,
        flags.databaseUrl ?? ctx.env.databaseUrl,
        flags.blobs ?? ctx.env.blobs,
      );
      const adminKey = ctx.takeCreatedAdminKey(engine);
      // Listening for the signals before saying we listen: a script may signal at once.
      const stopped = untilStopped();
      // Loaded on demand: no other command needs the HTTP stack, and startup time matters.
      const api = await import('@satchel/api');
      const { createMcpHttpHandler } = await import('@satchel/mcp');
      // DNS-rebinding defence: /mcp answers to loopback names, the bind address and these.
      const allowedHosts = [
        ...(WILDCARD_HOSTS.has(host) ? [] : [host.includes(':') ? `[${host}]` : host]),
        ...(flags.allowedHosts ?? ctx.env.allowedHosts ?? []),
      ];
      const mcp = createMcpHttpHandler({ allowedHosts });
      const { webApp } = await import('@satchel/web');
      const web = webApp(engine, { trustProxy: ctx.env.trustProxy });
      const apiOptions = {
        mcp,
        web: (request: Request) => web.fetch(request),
        logger: api.createLogger(level, run.io.stdout),
        ...(rateLimit === undefined ? {} : { rateLimit }),
        ...(bodyIdle === undefined ? {} : { bodyIdleTimeoutSeconds: bodyIdle }),
        ...(maxUploads === undefined ? {} : { maxConcurrentUploads: maxUploads }),
      };
      const logger = apiOptions.logger;
      const gc =
        flags.gcInterval === false
          ? {}
          : {
              gc: {
                intervalSeconds: flags.gcInterval ?? 3600,
                ...(flags.gcGrace === undefined ? {} : { graceSeconds: flags.gcGrace }),
                onRun: (outcome: { report: GcReport } | { error: unknown }) => {
                  if ('report' in outcome) logger.info({ gc: outcome.report }, 'gc');
                  else logger.warn({ err: outcome.error }, 'gc failed');
                },
              },
            };
      const server = await api
        .serve(engine, {
          host,
          port,
          api: apiOptions,
          webhooks: {},
          ...gc,
          ...(headerTimeout === undefined ? {} : { headerTimeoutSeconds: headerTimeout }),
        })
        .catch((error: unknown) => {
          throw bindError(error, host, port);
        });
      if (adminKey !== null) {
        const keyFile = await run.adminKeyFile();
        run.out(`first start: created the admin key (saved in ${keyFile}, mode 0600):`);
        run.out(`  ${adminKey}`);
        run.note(`try: curl -H "Authorization: Bearer $(cat ${keyFile})" ${server.url}/v1/whoami`);
      }
      run.out(`listening on ${server.url}`);
      const signal = await stopped;
      run.note(`${signal}: finishing requests in flight, then stopping`);
      // MCP sessions first: their event streams would otherwise hold the drain open.
      await mcp.close();
      await server.close();
      // The engine is closed by run() once this action returns.
    });
  examples(serve, [
    'satchel serve',
    'satchel serve --port 9000 --host 0.0.0.0',
    'SATCHEL_DATA=/srv/satchel SATCHEL_PORT=9000 satchel serve',
    'satchel serve --rate-limit 600/60s --log-level warn',
    'SATCHEL_WEBHOOK_ALLOW=127.0.0.1,10.0.0.0/8 satchel serve',
    'satchel serve --database-url postgres://satchel@db.internal:5432/satchel',
    'satchel serve --gc-interval 6h --gc-grace 2h',
  ]);
}
