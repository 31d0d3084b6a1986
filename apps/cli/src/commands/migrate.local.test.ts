/**
 * `satchel migrate` against a real PostgreSQL schema: the summary and `--json`, exit 4 for an
 * occupied target, exit 2 for a bad `--to-blobs`, and a run killed with SIGKILL that a second run
 * finishes. Skipped with one line where the test database is not reachable.
 */
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSatchel } from '@satchel/core';
import {
  createTestSchema,
  postgresRequired,
  probePostgres,
  type TestSchema,
  testDatabaseUrl,
} from '@satchel/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

const packageDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const url = testDatabaseUrl();
const unreachable = await probePostgres(url);
if (unreachable !== null) {
  if (postgresRequired()) throw new Error(`PostgreSQL at ${url} is required: ${unreachable}`);
  console.warn(`satchel migrate tests skipped: no PostgreSQL at ${url} (${unreachable})`);
}

const schemas: TestSchema[] = [];
afterEach(async () => {
  for (const schema of schemas.splice(0)) await schema.drop();
});

async function freshSchema(): Promise<TestSchema> {
  const schema = await createTestSchema(url);
  schemas.push(schema);
  return schema;
}

/** A data directory with `files` files, `reads` audited reads and a reader's key. */
async function populate(cli: TestCli, files: number, reads: number): Promise<void> {
  const engine = await openSatchel({ data: cli.data });
  try {
    await engine.createWorkspace('demo');
    const batch = Array.from({ length: files }, (_, i) => ({
      path: `/f/${i}.txt`,
      content: `file ${i}`,
    }));
    for (let i = 0; i < batch.length; i += 200) {
      await engine.writeFiles('demo', batch.slice(i, i + 200));
    }
    await Promise.all(
      Array.from({ length: reads }, (_, i) => engine.stat('demo', `/f/${i % files}.txt`)),
    );
  } finally {
    await engine.close();
  }
}

describe.skipIf(unreachable !== null)('satchel migrate', () => {
  it('copies the data directory, prints the counts, and refuses to copy again', async () => {
    const cli = await TestCli.create();
    await populate(cli, 20, 5);
    const schema = await freshSchema();
    const args = ['migrate', '--to-database', url, '--to-schema', schema.name];

    const first = await cli.run(args);
    expect(first.stderr).toContain('migrate: copying versions');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^versions\s+21\s+21$/m);
    expect(first.stdout).toContain('fsck ok');
    expect(first.stdout).toMatch(/audit chain ok: \d+ entries \(checkpoint matched\)/);
    expect(first.stdout).toContain(`content stays in ${cli.data}/blobs`);

    const again = await cli.run([...args, '--json']);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('already holds a finished migration');

    const engine = await openSatchel({ data: cli.data, stores: { metadata: schema.config } });
    try {
      expect((await engine.readText('demo', '/f/7.txt')).text).toBe('file 7');
    } finally {
      await engine.close();
    }
  });

  it('refuses a target that holds data (exit 4) and a bad --to-blobs (exit 2)', async () => {
    const cli = await TestCli.create();
    await populate(cli, 2, 0);
    const schema = await freshSchema();
    const other = await openSatchel({ data: ':memory:', stores: { metadata: schema.config } });
    await other.createWorkspace('theirs');
    await other.close();

    const occupied = await cli.run(['migrate', '--to-database', url, '--to-schema', schema.name]);
    expect(occupied.code).toBe(4);
    expect(occupied.stderr).toMatch(/target database is not empty \(.*1 workspaces/);
    const blobs = await cli.run(['migrate', '--to-database', url, '--to-blobs', 's3://B']);
    expect(blobs.code).toBe(2);
    expect(blobs.stderr).toContain('not an S3 bucket URL: s3://B');
    const missing = await cli.run(['migrate']);
    expect(missing.code).toBe(2);
  });

  it('finishes, on a second run, a migration killed with SIGKILL', async () => {
    const cli = await TestCli.create();
    await populate(cli, 600, 3000);
    const schema = await freshSchema();
    const args = ['migrate', '--to-database', url, '--to-schema', schema.name];

    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      cwd: packageDir,
      env: { ...process.env, SATCHEL_DATA: cli.data, NO_COLOR: '1' },
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // Killed while it copies the audit log: every earlier table is committed, the log is not.
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('migrate: copying audit')) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', () => reject(new Error(`migrate ended before it was killed: ${stderr}`)));
    });
    expect(await exited).toBeNull();

    const resumed = await cli.run([...args, '--json']);
    expect(resumed.code).toBe(0);
    const report = JSON.parse(resumed.stdout) as {
      resumed: boolean;
      copied: number;
      tables: { table: string; source: number; target: number }[];
    };
    expect(report.resumed).toBe(true);
    for (const t of report.tables) expect(t.target, t.table).toBe(t.source);
    const total = report.tables.reduce((n, t) => n + t.source, 0);
    expect(report.copied).toBeLessThan(total);
  });
});
