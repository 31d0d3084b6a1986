/** The behaviour every BlobStore must show; each implementation runs it with its own factory. */
import { createHash } from 'node:crypto';
import type { ErrorCode } from '@satchel/client/errors.js';
import { isSatchelError } from '@satchel/client/errors.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobRef, BlobStore } from './blob-store.js';
import { ChunkedHasher, chunkCount } from './content-hash.js';

/** Factories must open their store with this chunk size, so multi-chunk cases stay cheap. */
export const CONTRACT_CHUNK_SIZE = 1024;

export interface BlobStoreFixture {
  readonly store: BlobStore;
  /** Damages content behind the store's back: flips a byte of its last chunk, keeps its size. */
  corrupt(hash: string): Promise<void>;
  /** Loses stored content behind the store's back, as a deleted file would. */
  remove(hash: string): Promise<void>;
  cleanup(): Promise<void>;
}

const CS = CONTRACT_CHUNK_SIZE;

/** Deterministic bytes that differ from position to position (period far above a chunk). */
function bytes(size: number, seed = 1): Buffer {
  const out = Buffer.allocUnsafe(size);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

async function* pieces(data: Uint8Array, pieceSize = data.byteLength): AsyncGenerator<Uint8Array> {
  if (data.byteLength === 0) return;
  for (let offset = 0; offset < data.byteLength; offset += pieceSize) {
    yield data.subarray(offset, offset + pieceSize);
  }
}

async function collect(iterable: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of iterable) parts.push(part);
  return Buffer.concat(parts);
}

/** What `iterable` yielded before it failed, and the failure (undefined if it did not fail). */
async function collectUntilError(
  iterable: AsyncIterable<Uint8Array>,
): Promise<{ data: Buffer; error: unknown }> {
  const parts: Uint8Array[] = [];
  try {
    for await (const part of iterable) parts.push(Buffer.from(part));
  } catch (error) {
    return { data: Buffer.concat(parts), error };
  }
  return { data: Buffer.concat(parts), error: undefined };
}

async function listAll(store: BlobStore): Promise<string[]> {
  const hashes: string[] = [];
  for await (const hash of store.list()) hashes.push(hash);
  return hashes.sort();
}

async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<unknown> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error, `expected a SatchelError ${code}`).toBeDefined();
  expect(isSatchelError(error) ? error.code : error).toBe(code);
  return error;
}

/** A ref for content the store has never seen. */
function refOf(data: Uint8Array): BlobRef {
  const hasher = new ChunkedHasher(CS);
  hasher.update(data);
  return hasher.digest();
}

export function runBlobStoreContract(name: string, factory: () => Promise<BlobStoreFixture>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let fixture: BlobStoreFixture;
    let store: BlobStore;

    beforeEach(async () => {
      fixture = await factory();
      store = fixture.store;
    });

    afterEach(async () => {
      await fixture.cleanup();
    });

    async function put(data: Uint8Array, pieceSize?: number): Promise<BlobRef> {
      return store.put(pieces(data, pieceSize));
    }

    describe('put and get', () => {
      const withNul = Buffer.alloc(3 * CS + 11);
      withNul.set(bytes(CS, 7), CS);
      withNul.write('\0end\0', 3 * CS + 3, 'latin1');

      it.each([
        ['empty', Buffer.alloc(0)],
        ['1 byte', bytes(1)],
        ['exactly one chunk', bytes(CS)],
        ['one chunk and a byte', bytes(CS + 1)],
        ['many chunks', bytes(7 * CS + 123)],
        ['binary with NUL bytes', withNul],
      ])('round-trips %s content', async (_label, data) => {
        const ref = await put(data, 100);
        expect(ref.hash).toBe(sha256(data));
        expect(ref.size).toBe(data.byteLength);
        expect(ref.chunkSize).toBe(CS);
        expect(ref.chunks.byteLength).toBe(32 * chunkCount(data.byteLength, CS));
        expect(await collect(store.get(ref))).toEqual(data);
      });

      it('gives the same ref whether the source comes in tiny pieces or one piece', async () => {
        const data = bytes(3 * CS + 5, 3);
        const tiny = await put(data, 7);
        const whole = await put(data);
        expect(whole.hash).toBe(tiny.hash);
        expect(whole.size).toBe(tiny.size);
        expect(Buffer.from(whole.chunks)).toEqual(Buffer.from(tiny.chunks));
        expect(await collect(store.get(tiny))).toEqual(data);
      });

      it('copes with a source that reuses one buffer for every piece', async () => {
        const data = bytes(3 * CS + 40, 25);
        async function* reusing(): AsyncGenerator<Uint8Array> {
          const buffer = Buffer.alloc(100);
          for (let offset = 0; offset < data.byteLength; offset += buffer.byteLength) {
            const piece = buffer.subarray(0, Math.min(buffer.byteLength, data.byteLength - offset));
            data.copy(piece, 0, offset);
            yield piece;
            buffer.fill(0xee);
          }
        }
        const ref = await store.put(reusing());
        expect(ref.hash).toBe(sha256(data));
        expect(await collect(store.get(ref))).toEqual(data);
      });

      it('hands out bytes the caller may keep and modify', async () => {
        const data = bytes(2 * CS + 5, 26);
        const ref = await put(data);
        for await (const part of store.get(ref)) part.fill(0);
        expect(await collect(store.get(ref))).toEqual(data);
        expect(await store.verify(ref.hash)).toBe('ok');
      });

      it('stores content once however often it is put', async () => {
        const data = bytes(2 * CS + 9, 4);
        const first = await put(data);
        const second = await put(data, 64);
        expect(second).toEqual(first);
        expect(await listAll(store)).toEqual([first.hash]);
      });

      it('lists every distinct content', async () => {
        const refs = await Promise.all([put(bytes(10, 1)), put(bytes(CS * 2, 2)), put(bytes(0))]);
        expect(await listAll(store)).toEqual(refs.map((ref) => ref.hash).sort());
      });

      it('heals damaged content when the same content is put again', async () => {
        // The new bytes hash to the name, so they are the right ones; intact content is never
        // touched (the concurrent-put case below checks that).
        const data = bytes(3 * CS + 1, 5);
        const ref = await put(data);
        await fixture.corrupt(ref.hash);
        expect(await store.verify(ref.hash)).toBe('corrupt');
        expect(await put(data)).toEqual(ref);
        expect(await store.verify(ref.hash)).toBe('ok');
        expect(await collect(store.get(ref))).toEqual(data);
      });

      it('keeps the same content intact under concurrent puts', async () => {
        const data = bytes(5 * CS + 77, 6);
        const refs = await Promise.all(Array.from({ length: 8 }, (_, i) => put(data, 50 + i * 13)));
        for (const ref of refs) expect(ref).toEqual(refs[0]);
        expect(await listAll(store)).toEqual([sha256(data)]);
        expect(await store.verify(sha256(data))).toBe('ok');
        for (const ref of refs) expect(await collect(store.get(ref))).toEqual(data);
      });
    });

    describe('ranges', () => {
      const data = bytes(4 * CS + 100, 8);
      let ref: BlobRef;

      beforeEach(async () => {
        ref = await put(data);
      });

      it.each([
        ['first chunk exactly', 0, CS],
        ['second chunk exactly', CS, 2 * CS],
        ['inside one chunk', CS + 10, CS + 20],
        ['spanning chunks', CS - 5, 3 * CS + 7],
        ['the short last chunk', 4 * CS, 4 * CS + 100],
        ['the last byte', 4 * CS + 99, 4 * CS + 100],
        ['the full range', 0, 4 * CS + 100],
        ['empty, at the start', 0, 0],
        ['empty, at a chunk boundary', CS, CS],
        ['empty, at the end', 4 * CS + 100, 4 * CS + 100],
      ])('reads %s', async (_label, start, end) => {
        expect(await collect(store.get(ref, { start, end }))).toEqual(data.subarray(start, end));
      });

      it.each([
        ['a negative start', -1, 10],
        ['start after end', 20, 10],
        ['end past the content', 0, 4 * CS + 101],
        ['start past the content', 4 * CS + 101, 4 * CS + 101],
        ['a fractional offset', 1.5, 10],
      ])('refuses %s with INVALID_INPUT', async (_label, start, end) => {
        await expectCode(collect(store.get(ref, { start, end })), 'INVALID_INPUT');
      });
    });

    describe('integrity', () => {
      it('never yields bytes of a corrupt chunk, but streams the chunks before it', async () => {
        const data = bytes(5 * CS + 300, 9);
        const ref = await put(data);
        await fixture.corrupt(ref.hash);
        const { data: yielded, error } = await collectUntilError(store.get(ref));
        expect(isSatchelError(error, 'INTEGRITY')).toBe(true);
        expect(yielded).toEqual(data.subarray(0, 5 * CS));
      });

      it('serves ranges that touch only sound chunks of damaged content', async () => {
        const data = bytes(5 * CS + 300, 10);
        const ref = await put(data);
        await fixture.corrupt(ref.hash);
        const sound = { start: 10, end: 3 * CS + 3 };
        expect(await collect(store.get(ref, sound))).toEqual(data.subarray(sound.start, sound.end));
        await expectCode(
          collect(store.get(ref, { start: 5 * CS - 1, end: 5 * CS + 1 })),
          'INTEGRITY',
        );
      });

      it('fails with INTEGRITY for lost content', async () => {
        const ref = await put(bytes(2 * CS, 11));
        await fixture.remove(ref.hash);
        await expectCode(collect(store.get(ref)), 'INTEGRITY');
        await expectCode(collect(store.get(ref, { start: 0, end: 0 })), 'INTEGRITY');
      });

      it('fails with INTEGRITY for lost empty content', async () => {
        const ref = await put(Buffer.alloc(0));
        await fixture.remove(ref.hash);
        await expectCode(collect(store.get(ref)), 'INTEGRITY');
      });

      it('fails with INTEGRITY for content never stored', async () => {
        await expectCode(collect(store.get(refOf(bytes(CS + 3, 12)))), 'INTEGRITY');
      });

      it('fails with INTEGRITY when the ref records other chunk digests', async () => {
        const data = bytes(2 * CS, 13);
        const ref = await put(data);
        const chunks = Uint8Array.from(ref.chunks);
        chunks[40] = (chunks[40] ?? 0) ^ 0xff;
        const { data: yielded, error } = await collectUntilError(store.get({ ...ref, chunks }));
        expect(isSatchelError(error, 'INTEGRITY')).toBe(true);
        expect(yielded).toEqual(data.subarray(0, CS));

        const empty = await put(Buffer.alloc(0));
        const wrong = Uint8Array.from(empty.chunks).fill(0);
        await expectCode(collect(store.get({ ...empty, chunks: wrong })), 'INTEGRITY');
      });

      it('verifies content as ok, corrupt or missing', async () => {
        const ref = await put(bytes(3 * CS, 14));
        const other = await put(bytes(CS, 15));
        expect(await store.verify(ref.hash)).toBe('ok');
        await fixture.corrupt(ref.hash);
        expect(await store.verify(ref.hash)).toBe('corrupt');
        await fixture.remove(other.hash);
        expect(await store.verify(other.hash)).toBe('missing');
        expect(await store.verify(sha256(bytes(9, 16)))).toBe('missing');
      });
    });

    describe('failed puts', () => {
      it('refuses content over maxBytes with TOO_LARGE and keeps nothing', async () => {
        const piece = bytes(CS, 17);
        let pulled = 0;
        async function* counted(): AsyncGenerator<Uint8Array> {
          for (let i = 0; i < 100; i++) {
            pulled++;
            yield piece;
          }
        }
        const error = await expectCode(store.put(counted(), { maxBytes: 2 * CS + 1 }), 'TOO_LARGE');
        expect(String(error)).toContain(String(2 * CS + 1));
        // "As soon as": the source is not drained past the piece that crossed the limit.
        expect(pulled).toBe(3);
        expect(await store.has(sha256(Buffer.concat([piece, piece, piece])))).toBe(false);
        expect(await listAll(store)).toEqual([]);
      });

      it('accepts content of exactly maxBytes', async () => {
        const data = bytes(2 * CS, 18);
        const ref = await store.put(pieces(data, 100), { maxBytes: data.byteLength });
        expect(await collect(store.get(ref))).toEqual(data);
      });

      it("rejects with the source's own error and keeps nothing", async () => {
        const boom = new Error('source broke');
        async function* failing(): AsyncGenerator<Uint8Array> {
          yield bytes(CS, 19);
          yield bytes(CS, 20);
          throw boom;
        }
        await expect(store.put(failing())).rejects.toBe(boom);
        expect(await listAll(store)).toEqual([]);
      });
    });

    describe('has, delete and hash checks', () => {
      it('knows what it holds', async () => {
        const data = bytes(CS + 2, 21);
        expect(await store.has(sha256(data))).toBe(false);
        const ref = await put(data);
        expect(await store.has(ref.hash)).toBe(true);
      });

      it('deletes content, and deleting absent content is fine', async () => {
        const gone = await put(bytes(2 * CS, 22));
        const kept = await put(bytes(2 * CS, 23));
        await store.delete(gone.hash);
        expect(await store.has(gone.hash)).toBe(false);
        expect(await listAll(store)).toEqual([kept.hash]);
        await expectCode(collect(store.get(gone)), 'INTEGRITY');
        await store.delete(gone.hash);
        await store.delete(sha256(bytes(5, 24)));
        expect(await collect(store.get(kept))).toEqual(bytes(2 * CS, 23));
      });

      it('refuses names that are not SHA-256 hex digests with INVALID_INPUT', async () => {
        for (const bad of ['../../etc/passwd', 'ABCD', sha256(bytes(1)).toUpperCase(), '']) {
          await expectCode(store.has(bad), 'INVALID_INPUT');
          await expectCode(store.verify(bad), 'INVALID_INPUT');
          await expectCode(store.delete(bad), 'INVALID_INPUT');
          await expectCode(collect(store.get({ ...refOf(bytes(1)), hash: bad })), 'INVALID_INPUT');
        }
      });
    });
  });
}
