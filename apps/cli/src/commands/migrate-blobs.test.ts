/**
 * `satchel migrate --to-blobs s3://…` against the S3 stand-in on 127.0.0.1: copies the data
 * directory's content, skips what is already there on a second run, and the server then serves
 * it from the bucket (SATCHEL_BLOBS).
 */
import { mkdtemp, readdir, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSatchel } from '@satchel/core';
import { type S3TestServer, startS3Server } from '@satchel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

describe('satchel migrate --to-blobs', () => {
  let dir: string;
  let s3: S3TestServer;
  let env: Record<string, string>;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'satchel-migrate-blobs-'));
    s3 = await startS3Server(dir, 'acme-satchel');
    env = {
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
    };
  });

  afterEach(async () => {
    await s3.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('copies the content into the bucket, resumes, and the engine then reads it from there', async () => {
    const cli = await TestCli.create();
    const big = (i: number) => `${String(i).repeat(10)}\n`.repeat(20_000);
    const engine = await openSatchel({ data: cli.data });
    try {
      await engine.createWorkspace('demo');
      for (let i = 0; i < 3; i++) await engine.writeFile('demo', `/big/${i}.txt`, big(i));
    } finally {
      await engine.close();
    }
    const blobs = (await readdir(join(cli.data, 'blobs'), { recursive: true })).filter((n) =>
      /[0-9a-f]{64}$/.test(n),
    );
    expect(blobs.length).toBe(3);

    const first = await cli.run(
      ['migrate', '--data', cli.data, '--to-blobs', 's3://acme-satchel/prod'],
      { env },
    );
    expect(first.stderr).toContain('copying 3 blobs');
    if (first.code !== 0) console.error(first.stderr);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('content copied to s3://acme-satchel/prod/: 3 blobs');
    expect(first.stdout).toContain('verified: 3 of 3 blobs read back intact');
    expect((await s3.keys()).filter((k) => k.startsWith('prod/blobs/')).length).toBe(3);

    // An interrupted run: one blob never arrived. The next run copies only that one.
    const [gone] = await s3.keys();
    await unlink(s3.pathOf(gone ?? ''));
    const second = await cli.run(
      ['migrate', '--data', cli.data, '--to-blobs', 's3://acme-satchel/prod', '--json'],
      {
        env,
      },
    );
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout).content).toMatchObject({
      blobs: 3,
      copied: 1,
      skipped: 2,
      verified: 3,
    });

    // The data directory's blob folder is no longer needed: the engine reads from the bucket.
    await rm(join(cli.data, 'blobs'), { recursive: true });
    const read = await cli.run(['cat', '--data', cli.data, '-w', 'demo', '/big/2.txt'], {
      env: { ...env, SATCHEL_BLOBS: 's3://acme-satchel/prod' },
    });
    expect(read.stderr).toBe('');
    expect(read.code).toBe(0);
    expect(read.stdout).toBe(big(2));
  });

  it('refuses a run without a target, and a bucket URL that is not one', async () => {
    const cli = await TestCli.create();
    const none = await cli.run(['migrate'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('missing --to-database or --to-blobs');
    const bad = await cli.run(['migrate', '--to-blobs', 's3:///prefix'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not an S3 bucket URL');
  });
});
