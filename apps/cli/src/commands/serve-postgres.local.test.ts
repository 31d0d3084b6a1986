/**
 * `satchel serve` with its metadata in PostgreSQL (`--database-url`, SATCHEL_DATABASE_URL), as
 * a real process: what it stores is in the database, not the data directory; an unreachable or
 * malformed URL stops it with one line. The part that needs a database skips (one line) where
 * none answers at SATCHEL_TEST_DATABASE_URL; SATCHEL_TEST_REQUIRE_POSTGRES=1 makes that fail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const packageDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const databaseUrl =
  process.env.SATCHEL_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** Null when the test database answers; otherwise why not. */
async function probe(): Promise<string | null> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

const unreachable = await probe();
if (unreachable !== null) {
  const required = ['1', 'true'].includes(process.env.SATCHEL_TEST_REQUIRE_POSTGRES ?? '');
  const line = `no PostgreSQL at ${databaseUrl} (${unreachable})`;
  if (required) throw new Error(`SATCHEL_TEST_REQUIRE_POSTGRES is set but there is ${line}`);
  console.warn(`PostgreSQL serve tests skipped: ${line}; set SATCHEL_TEST_DATABASE_URL`);
}

let data: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  data = await mkdtemp(join(tmpdir(), 'satchel-serve-pg-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(data, { recursive: true, force: true });
});

interface Run {
  readonly process: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exit: Promise<number | null>;
}

function satchel(args: string[], env: Record<string, string>): Run {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: packageDir,
    env: { ...process.env, SATCHEL_DATA: data, NO_COLOR: '1', ...env },
  });
  children.push(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  proc.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exit = once(proc, 'exit').then(([code]) => code as number | null);
  return { process: proc, stdout: () => stdout, stderr: () => stderr, exit };
}

describe('satchel serve --database-url', () => {
  it('exits 9 with one line naming an unreachable database, its password hidden', async () => {
    const run = satchel(
      ['serve', '--port', '0', '--database-url', 'postgres://satchel:hunter2@127.0.0.1:1/gone'],
      {},
    );
    expect(await run.exit).toBe(9);
    const [first] = run.stderr().trim().split('\n');
    expect(first).toContain(
      'cannot reach the PostgreSQL database at postgres://satchel:***@127.0.0.1:1/gone',
    );
    expect(run.stderr()).not.toContain('hunter2');
    expect(run.stderr()).not.toMatch(/\n\s+at /);
  }, 30_000);

  it('exits 2 for a URL that is not PostgreSQL, also from SATCHEL_DATABASE_URL', async () => {
    const run = satchel(['serve', '--port', '0'], { SATCHEL_DATABASE_URL: 'mysql://x@host/db' });
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toContain('not a PostgreSQL URL: mysql://x@host/db');
  }, 30_000);

  describe.skipIf(unreachable !== null)('on a live database', () => {
    const schema = `satchel_cli_${process.pid}_${Date.now().toString(36)}`;
    const admin = () => new pg.Client({ connectionString: databaseUrl });
    /** The test database with this file's schema as the search_path, as a user would write it. */
    const url = `${databaseUrl}${databaseUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(
      `-c search_path=${schema}`,
    )}`;

    beforeAll(async () => {
      const client = admin();
      await client.connect();
      await client.query(`create schema ${schema}`);
      await client.end();
    });
    afterAll(async () => {
      const client = admin();
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    });

    it('keeps metadata in the database: another data directory sees the same files', async () => {
      // Every node (and every local command) on one database seals webhook secrets with one key.
      const webhookKey = { SATCHEL_WEBHOOK_KEY: Buffer.alloc(32, 7).toString('base64') };
      const server = satchel(['serve', '--port', '0', '--database-url', url], webhookKey);
      const listening = await new Promise<string>((resolve, reject) => {
        server.process.stdout?.on('data', () => {
          const match = /listening on (http:\/\/\S+)/.exec(server.stdout());
          if (match?.[1] !== undefined) resolve(match[1]);
        });
        void server.exit.then((code) => reject(new Error(`exited ${code}: ${server.stderr()}`)));
      });
      const key = (await readFile(join(data, 'admin.key'), 'utf8')).trim();
      const auth = { Authorization: `Bearer ${key}` };
      const created = await fetch(`${listening}/v1/workspaces`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'shared' }),
      });
      expect(created.status).toBe(201);
      const put = await fetch(`${listening}/v1/workspaces/shared/files/notes.md`, {
        method: 'PUT',
        headers: auth,
        body: 'kept in PostgreSQL',
      });
      expect(put.ok).toBe(true);
      server.process.kill('SIGTERM');
      expect(await server.exit).toBe(0);
      // No SQLite file: the metadata went to the database.
      await expect(access(join(data, 'satchel.db'))).rejects.toThrow();

      // A second data directory on the same database: the workspace, the file's history and
      // its (small, inline) content are there; no new admin key is made.
      const other = await mkdtemp(join(tmpdir(), 'satchel-serve-pg-other-'));
      try {
        const cat = satchel(['cat', '/notes.md', '-w', 'shared'], {
          SATCHEL_DATA: other,
          SATCHEL_DATABASE_URL: url,
          ...webhookKey,
        });
        expect(await cat.exit).toBe(0);
        expect(cat.stdout()).toBe('kept in PostgreSQL');
        // Without the shared key, its own webhook.key would differ: refused at once, clearly.
        const alone = satchel(['cat', '/notes.md', '-w', 'shared'], {
          SATCHEL_DATA: other,
          SATCHEL_DATABASE_URL: url,
        });
        expect(await alone.exit).toBe(2);
        expect(alone.stderr()).toContain('SATCHEL_WEBHOOK_KEY');
        await expect(access(join(other, 'admin.key'))).rejects.toThrow();
      } finally {
        await rm(other, { recursive: true, force: true });
      }
    }, 60_000);
  });
});
