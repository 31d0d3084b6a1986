/**
 * `satchel put` of a large file to a server: a resumable upload. A run that was cut off (its
 * session holds part of the file) is continued by the next run from the server's offset, and
 * the progress bar says where it resumed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { type RunningServer, serve } from '@satchel/api';
import { openSatchel, RemoteSatchel, type SatchelEngine } from '@satchel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './program.js';
import { uploadThreshold } from './uploads.js';

const MiB = 1024 * 1024;
let dir: string;
let engine: SatchelEngine;
let server: RunningServer;
let key: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'satchel-cli-uploads-'));
  engine = await openSatchel({ data: join(dir, 'server') });
  key = engine.createdAdminKey ?? '';
  await engine.createWorkspace('w');
  server = await serve(engine, { port: 0, api: { logFault: () => undefined } });
});
afterAll(async () => {
  await server.close();
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

async function satchel(argv: string[], env: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 160 });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const stdin = new PassThrough();
  stdin.end();
  const code = await run(argv, {
    stdout,
    stderr,
    stdin,
    env: { SATCHEL_URL: server.url, SATCHEL_TOKEN: key, SATCHEL_WORKSPACE: 'w', ...env },
    cwd: dir,
    isTTY: false,
    stderrIsTTY: true,
  });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

describe('satchel put of a large file to a server', () => {
  it("continues a cut-off upload from the server's offset and shows the resumed part", async () => {
    const content = randomBytes(12 * MiB);
    const sha256 = createHash('sha256').update(content).digest('hex');
    await writeFile(join(dir, 'big.bin'), content);
    // An earlier run got 5 MiB across before it died.
    const earlier = new RemoteSatchel({ url: server.url, token: key });
    const upload = await earlier.createUpload('w', '/big.bin', { size: content.length, sha256 });
    await earlier.appendUpload('w', upload.id, 0, content.subarray(0, 5 * MiB));

    const put = await satchel(['put', 'big.bin', '/big.bin']);
    expect(put.code, put.stderr).toBe(0);
    expect(put.stdout).toMatch(/^wrote \/big\.bin \(12582912 bytes, version \d+\)\n$/);
    expect(put.stderr).toContain('(resumed at 5.0 MiB)');
    expect(put.stderr).toContain('100% 12.0 MiB/12.0 MiB');
    expect((await engine.stat('w', '/big.bin')).hash).toBe(sha256);
    expect(await earlier.listUploads('w')).toEqual([]);
  });

  it('sync continues a cut-off upload too, and its progress line says how much was resumed', async () => {
    const content = randomBytes(10 * MiB);
    const sha256 = createHash('sha256').update(content).digest('hex');
    await mkdir(join(dir, 'tree'), { recursive: true });
    await writeFile(join(dir, 'tree', 'data.bin'), content);
    const earlier = new RemoteSatchel({ url: server.url, token: key });
    const upload = await earlier.createUpload('w', '/data.bin', { size: content.length, sha256 });
    await earlier.appendUpload('w', upload.id, 0, content.subarray(0, 4 * MiB));

    const sync = await satchel(['sync', 'tree']);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).toContain('(4.0 MiB resumed)');
    expect((await engine.stat('w', '/data.bin')).hash).toBe(sha256);
    expect(await earlier.listUploads('w')).toEqual([]);
  });

  it('takes the threshold from SATCHEL_UPLOAD_THRESHOLD, refusing one it cannot read', async () => {
    await writeFile(join(dir, 'mid.bin'), randomBytes(2 * MiB));
    const put = await satchel(['put', 'mid.bin', '/mid.bin'], { SATCHEL_UPLOAD_THRESHOLD: '1MiB' });
    expect(put.code, put.stderr).toBe(0);
    expect(uploadThreshold('8MiB')).toBe(8 * MiB);
    expect(uploadThreshold('off')).toBe(Number.POSITIVE_INFINITY);
    expect(() => uploadThreshold('lots')).toThrow(/SATCHEL_UPLOAD_THRESHOLD/);
    const bad = await satchel(['put', 'mid.bin', '/mid2.bin'], { SATCHEL_UPLOAD_THRESHOLD: 'x' });
    expect(bad.code).toBe(2);
  });
});
