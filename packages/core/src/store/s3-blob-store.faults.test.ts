/**
 * S3BlobStore with faults between it and the object store (test-support/fault-proxy.ts): writes
 * fail cleanly with nothing acknowledged that is not stored, reads never return wrong bytes, and
 * what S3 semantics make safe to retry is retried.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSatchelError } from '@satchel/client/errors.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Fault, type FaultProxy, startFaultProxy } from '../test-support/fault-proxy.js';
import {
  type S3TestServer,
  startS3Server,
  TEST_S3_CREDENTIALS,
} from '../test-support/s3-server.js';
import type { BlobRef } from './blob-store.js';
import { S3BlobStore } from './s3-blob-store.js';

const MIB = 1024 * 1024;
const CHUNK = 64 * 1024;

function content(size: number, seed: number): Buffer {
  const data = Buffer.allocUnsafe(size);
  for (let i = 0; i + 4 <= size; i += 4) data.writeUInt32LE((i * 2654435761 + seed) >>> 0, i);
  return data;
}

async function* pieces(data: Buffer, size = 256 * 1024): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < data.byteLength; offset += size)
    yield data.subarray(offset, offset + size);
}

async function collectUntilError(
  iterable: AsyncIterable<Uint8Array>,
): Promise<{ data: Buffer; error: unknown }> {
  const parts: Buffer[] = [];
  try {
    for await (const part of iterable) parts.push(Buffer.from(part));
  } catch (error) {
    return { data: Buffer.concat(parts), error };
  }
  return { data: Buffer.concat(parts), error: undefined };
}

describe('S3BlobStore behind a faulty network', () => {
  let dir: string;
  let server: S3TestServer;
  let proxy: FaultProxy;
  let store: S3BlobStore;
  /** Reads straight from the server, to check what is really stored. */
  let direct: S3BlobStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'satchel-s3-faults-'));
    server = await startS3Server(dir);
    proxy = await startFaultProxy(server.endpoint);
    const common = {
      bucket: server.bucket,
      forcePathStyle: true,
      credentials: TEST_S3_CREDENTIALS,
      chunkSize: CHUNK,
      partSize: 5 * MIB,
      requestTimeout: 1_000,
    };
    store = new S3BlobStore({ ...common, endpoint: proxy.endpoint, maxAttempts: 3 });
    direct = new S3BlobStore({ ...common, endpoint: server.endpoint });
  });

  afterEach(async () => {
    store.close();
    direct.close();
    await proxy.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  function fault(fault: Fault, method: string, test: (target: string) => boolean, times?: number) {
    proxy.rules.push({
      fault,
      match: (m, t) => m === method && test(t),
      ...(times === undefined ? {} : { times }),
    });
  }
  const isPart = (t: string) => t.includes('partNumber=');
  const isBlob = (t: string) => t.includes('blobs/');

  /** After a put failed: nothing under a content name, no temp objects, no open uploads. */
  async function expectNothingStored(): Promise<void> {
    expect(await server.keys()).toEqual([]);
    expect(server.openUploads.size).toBe(0);
  }

  /** After a put resolved: the content is really there and intact. */
  async function expectStored(ref: BlobRef, data: Buffer): Promise<void> {
    expect(await direct.verify(ref.hash)).toBe('ok');
    expect(await server.keys()).toEqual([`blobs/${ref.hash}`]);
    const { data: read, error } = await collectUntilError(direct.get(ref));
    expect(error).toBeUndefined();
    expect(read.equals(data)).toBe(true);
  }

  describe('writes', () => {
    const cases: Array<[string, Fault, number]> = [
      ['a 500', 'status-500', 1],
      ['a reset connection', 'reset', 1],
      ['a request that is never answered', 'hang', 1],
    ];
    it.each(cases)(
      'retries an upload part after %s and stores the content',
      async (_l, f, times) => {
        fault(f, 'PUT', isPart, times);
        const data = content(11 * MIB, 1);
        const ref = await store.put(pieces(data));
        expect(proxy.injected.length).toBe(1);
        await expectStored(ref, data);
      },
    );

    it.each(cases)('retries a small put after %s and stores the content', async (_l, f, times) => {
      fault(f, 'PUT', isBlob, times);
      const data = content(MIB, 2);
      const ref = await store.put(pieces(data));
      await expectStored(ref, data);
    });

    it.each([
      ['keeps failing with 500', 'status-500'],
      ['keeps resetting', 'reset'],
      ['keeps timing out', 'hang'],
      ['damages the bytes sent', 'corrupt-request'],
    ] as Array<[string, Fault]>)('fails an upload cleanly when the store %s', async (_l, f) => {
      fault(f, 'PUT', isPart);
      const error = await store.put(pieces(content(11 * MIB, 3))).catch((e) => e);
      expect(isSatchelError(error)).toBe(true);
      expect(error.code).toBe('UNAVAILABLE');
      await expectNothingStored();
    });

    it('fails a small put cleanly when its bytes are damaged on the way, storing nothing', async () => {
      fault('corrupt-request', 'PUT', isBlob);
      const error = await store.put(pieces(content(MIB, 4))).catch((e) => e);
      expect(isSatchelError(error, 'UNAVAILABLE')).toBe(true);
      await expectNothingStored();
    });

    it('fails cleanly when publishing under the hash name keeps failing', async () => {
      fault('status-500', 'PUT', (t) => isBlob(t) && !isPart(t));
      const error = await store.put(pieces(content(11 * MIB, 5))).catch((e) => e);
      expect(isSatchelError(error, 'UNAVAILABLE')).toBe(true);
      await expectNothingStored();
    });
  });

  describe('reads', () => {
    const data = content(3 * MIB + 100, 6);
    let ref: BlobRef;

    beforeEach(async () => {
      ref = await direct.put(pieces(data));
    });

    it.each([
      ['a damaged byte', 'corrupt-response'],
      ['a body cut short', 'truncate-response'],
      ['a reset connection', 'reset'],
      ['a 500', 'status-500'],
    ] as Array<[string, Fault]>)(
      'fetches again after %s and returns the right bytes',
      async (_l, f) => {
        fault(f, 'GET', isBlob, 1);
        const { data: read, error } = await collectUntilError(
          store.get(ref, { start: 10, end: data.byteLength - 10 }),
        );
        expect(error).toBeUndefined();
        expect(read.equals(data.subarray(10, data.byteLength - 10))).toBe(true);
        expect(proxy.injected.length).toBe(1);
      },
    );

    it('gives INTEGRITY, never wrong bytes, when every transfer is damaged', async () => {
      fault('corrupt-response', 'GET', isBlob);
      const { data: read, error } = await collectUntilError(store.get(ref));
      expect(isSatchelError(error, 'INTEGRITY')).toBe(true);
      // Only whole chunks before the damaged one were handed out, and they are right.
      expect(read.byteLength % CHUNK).toBe(0);
      expect(read.equals(data.subarray(0, read.byteLength))).toBe(true);
      expect(read.byteLength).toBeLessThan(data.byteLength);
    });

    it('gives UNAVAILABLE, never wrong bytes, when every body is cut short', async () => {
      fault('truncate-response', 'GET', isBlob);
      const { data: read, error } = await collectUntilError(store.get(ref));
      expect(isSatchelError(error, 'UNAVAILABLE')).toBe(true);
      expect(read.equals(data.subarray(0, read.byteLength))).toBe(true);
    });

    it('says corrupt, not ok, when verify reads damaged bytes', async () => {
      fault('corrupt-response', 'GET', isBlob, 1);
      expect(await store.verify(ref.hash)).toBe('corrupt');
      expect(await store.verify(ref.hash)).toBe('ok');
    });
  });
});
