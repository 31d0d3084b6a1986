/** Test support: real temporary directories and engines on them, cleaned up after each test. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import { afterEach } from 'vitest';
import { type OpenSatchelOptions, openSatchel } from '../engine/open.js';
import type { SatchelEngine } from '../engine/satchel-engine.js';
import { createTestSchema, testDatabaseUrl } from './postgres.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** A fresh directory under the OS temp dir, removed after the test. */
export async function tempDir(prefix = 'satchel-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * An engine on a fresh data directory with workspace "ws", closed after the test. With
 * `SATCHEL_TEST_METADATA=postgres` its metadata goes to a fresh schema of the test PostgreSQL
 * instead (dropped after the test): a way to run the engine's tests on the other dialect.
 */
export async function openTemp(
  options: Partial<OpenSatchelOptions> = {},
): Promise<{ satchel: SatchelEngine; data: string }> {
  const data = join(await tempDir(), 'data');
  let stores = options.stores;
  if (process.env.SATCHEL_TEST_METADATA === 'postgres' && !stores?.metadata && !options.metadata) {
    const schema = await createTestSchema(testDatabaseUrl());
    cleanups.push(() => schema.drop());
    stores = { ...stores, metadata: schema.config };
  }
  const satchel = await openSatchel({ data, ...options, ...(stores ? { stores } : {}) });
  cleanups.push(() => satchel.close());
  await satchel.createWorkspace('ws');
  return { satchel, data };
}

export async function readAll(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of body) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces);
}

export async function catFile(satchel: Satchel, path: string, version?: number): Promise<Buffer> {
  const { body } = await satchel.readFile('ws', path, version === undefined ? {} : { version });
  return readAll(body);
}
