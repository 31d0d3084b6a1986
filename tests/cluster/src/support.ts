/**
 * Real `satchel serve` processes on one PostgreSQL schema (and one shared data directory for
 * content, as an NFS mount would be), a TCP proxy that can cut them off from the database, and
 * small HTTP helpers. Without PostgreSQL the suites skip with one line, unless
 * SATCHEL_TEST_REQUIRE_POSTGRES=1 makes that a failure.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const CLI = fileURLToPath(new URL('../../../apps/cli/dist/main.js', import.meta.url));
const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The test database, or null (with one line saying how to run these) when there is none. */
export async function postgresUrl(): Promise<string | null> {
  const url = process.env.SATCHEL_TEST_DATABASE_URL ?? DEFAULT_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return url;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (process.env.SATCHEL_TEST_REQUIRE_POSTGRES === '1') {
      throw new Error(`PostgreSQL required (SATCHEL_TEST_REQUIRE_POSTGRES=1) but ${url}: ${why}`);
    }
    console.warn(
      `cluster suites skipped: no database at ${url} (${why}); set SATCHEL_TEST_DATABASE_URL`,
    );
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** `url` with its host and port replaced (to go through a proxy). */
export function via(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

/** A fresh schema in the test database; `url` selects it; `drop` removes it. */
export async function freshSchema(
  base: string,
): Promise<{ name: string; url: (server?: string) => string; drop: () => Promise<void> }> {
  const name = `cluster_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${name}`);
  await admin.end();
  const url = (server = base) => {
    const u = new URL(server);
    u.searchParams.set('options', `-c search_path=${name}`);
    return u.toString();
  };
  return {
    name,
    url,
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      await c.end();
    },
  };
}

export interface Node {
  readonly url: string;
  readonly process: ChildProcess;
  /** Everything it printed on stderr (for failure messages). */
  readonly stderr: string[];
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
}

export const WEBHOOK_KEY = randomBytes(32).toString('base64');

/** Starts `satchel serve` on a free port against `databaseUrl`, content in `data`. */
export async function startNode(
  data: string,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Node> {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--port',
      '0',
      '--data',
      data,
      '--rate-limit',
      'off',
      // Empty: the embedded store in `data`.
      ...(databaseUrl === '' ? [] : ['--database-url', databaseUrl]),
    ],
    {
      env: {
        ...process.env,
        SATCHEL_WEBHOOK_KEY: WEBHOOK_KEY,
        SATCHEL_WEBHOOK_ALLOW: '127.0.0.1',
        SATCHEL_LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const stderr: string[] = [];
  const debug = process.env.CLUSTER_DEBUG === '1';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr.push(text);
    if (debug) process.stderr.write(text);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      if (debug) process.stderr.write(`${line}\n`);
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) =>
      reject(new Error(`satchel serve exited (${code}) before listening: ${stderr.join('')}`)),
    );
  });
  return {
    url,
    process: child,
    stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
    kill: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A data directory for a cluster (removed by `cleanup`). */
export async function dataDir(): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'satchel-cluster-'));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** The admin key the first node wrote into the data directory. */
export async function adminKey(data: string): Promise<string> {
  return (await readFile(join(data, 'admin.key'), 'utf8')).trim();
}

/** A fetch with the key as bearer token. */
export function client(key: string) {
  return (base: string, path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
    });
}

/**
 * A TCP proxy in front of PostgreSQL that can be taken down (open connections cut, new ones
 * refused) and brought back: a database outage, as the nodes see it.
 */
export async function outageProxy(target: { host: string; port: number }): Promise<{
  port: number;
  down: () => void;
  up: () => void;
  close: () => Promise<void>;
}> {
  let up = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    if (!up) {
      inbound.destroy();
      return;
    }
    const outbound = connect(target.port, target.host);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no proxy address');
  return {
    port: address.port,
    down: () => {
      up = false;
      for (const s of sockets) s.destroy();
    },
    up: () => {
      up = true;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function until<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 5000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
