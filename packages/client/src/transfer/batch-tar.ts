/**
 * The wire form of batch transfer: a POSIX tar stream (tar-stream), one entry per file, named by
 * its workspace path without the leading slash. What a file needs beyond its name and bytes
 * travels in pax headers: `SATCHEL.sha256` (its hash; with `SATCHEL.by-hash` and no bytes, the
 * content the server holds), `SATCHEL.if-match` / `SATCHEL.if-none-match` (conditions),
 * `SATCHEL.seq` (the version downloaded) and `SATCHEL.error` (a file that could not be read).
 * Both directions stream: one entry at a time is in memory, whatever the number of files.
 */
import { once } from 'node:events';
import { extract, type Header, type Pack, pack } from 'tar-stream';
import { SatchelError } from '../errors.js';
import type { DownloadItem, UploadEntry } from '../operations/satchel.js';
import { BatchErrorSchema, type FileInfo, FileInfoSchema } from '../schemas/index.js';

/** pax keys of batch transfer. */
const PAX = {
  hash: 'SATCHEL.sha256',
  byHash: 'SATCHEL.by-hash',
  ifMatch: 'SATCHEL.if-match',
  ifNoneMatch: 'SATCHEL.if-none-match',
  info: 'SATCHEL.info',
  error: 'SATCHEL.error',
} as const;

export const TAR_MEDIA_TYPE = 'application/x-tar';

type EntryHeader = Partial<Header> & Pick<Header, 'name'> & { pax?: Record<string, string> };
type PaxEntry = AsyncIterable<Uint8Array> & { header: Header & { pax?: Record<string, string> } };

/** Ends a streamx stream; its types want an argument `end()` does not need. */
function end(stream: unknown): void {
  (stream as { end(): void }).end();
}

function tarName(path: string): string {
  return path.startsWith('/') ? path.slice(1) : path;
}

async function* exactly(
  source: AsyncIterable<Uint8Array>,
  size: number,
): AsyncGenerator<Uint8Array> {
  // A file that grew or shrank since it was measured still fills its entry exactly; the hash
  // sent with it no longer matches, so the server refuses that one file.
  let left = size;
  for await (const piece of source) {
    if (left === 0) break;
    const part = piece.byteLength > left ? piece.subarray(0, left) : piece;
    left -= part.byteLength;
    yield part;
  }
  if (left > 0) yield new Uint8Array(left);
}

/** Writes one entry into `packer`, streaming `body` with backpressure. */
async function writeEntry(
  packer: Pack,
  header: EntryHeader,
  body: AsyncIterable<Uint8Array> | Uint8Array | null,
): Promise<void> {
  const done = new Promise<void>((resolve, reject) => {
    const settle = (error?: Error | null) => (error ? reject(error) : resolve());
    if (body === null) return void packer.entry(header, new Uint8Array(0), settle);
    if (body instanceof Uint8Array) return void packer.entry(header, body, settle);
    const sink = packer.entry(header, settle);
    void (async () => {
      try {
        for await (const piece of body) {
          if (!sink.write(piece)) await once(sink, 'drain');
        }
        end(sink);
      } catch (error) {
        sink.destroy(error as Error);
        reject(error);
      }
    })();
  });
  await done;
}

/** Entries up to this size are read whole and packed as one buffer (cheaper than a stream). */
const WHOLE_MAX = 1024 * 1024;
/** Bytes of archive handed on at once. */
const CHUNK = 256 * 1024;
/** Entries packed but not yet read by the consumer, before the producer waits. */
const AHEAD = 64;

/**
 * Adds entries to a pack without waiting for each to be read: at most `AHEAD` are queued (and
 * at most `AHEAD` × WHOLE_MAX bytes), then the producer waits for the oldest.
 */
class Packer {
  readonly #queued: Promise<void>[] = [];

  constructor(readonly pack: Pack) {}

  async add(header: EntryHeader, body: AsyncIterable<Uint8Array> | Uint8Array | null) {
    if (body === null || body instanceof Uint8Array) {
      const queued = writeEntry(this.pack, header, body);
      // Awaited later; an archive destroyed meanwhile (the consumer went away) is no crash.
      queued.catch(() => undefined);
      this.#queued.push(queued);
      if (this.#queued.length >= AHEAD) await this.#queued.shift();
      return;
    }
    await this.settle();
    await writeEntry(this.pack, header, body);
  }

  async settle(): Promise<void> {
    while (this.#queued.length > 0) await this.#queued.shift();
  }
}

/**
 * The rest of a stream whose first piece was read already (to open its file before it is
 * sent): `first`, then what `iterator` still yields.
 */
export async function* resumed(
  iterator: AsyncIterator<Uint8Array>,
  first: IteratorResult<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  for (let next = first; !next.done; next = await iterator.next()) yield next.value;
}

async function whole(body: AsyncIterable<Uint8Array>, size: number): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  for await (const piece of exactly(body, size)) pieces.push(piece);
  return pieces.length === 1 && pieces[0] ? pieces[0] : Buffer.concat(pieces, size);
}

/** Runs `produce` into a pack stream and yields the tar bytes as the consumer reads them. */
async function* packed(produce: (packer: Packer) => Promise<void>): AsyncGenerator<Uint8Array> {
  const packer = pack();
  const adder = new Packer(packer);
  const producing = produce(adder)
    .then(() => adder.settle())
    .then(
      () => packer.finalize(),
      (error: unknown) => packer.destroy(error as Error),
    );
  // Pieces are joined up to CHUNK bytes: a header, a pax record and a small file would each be
  // a write of their own, and small writes on a socket wait on delayed acknowledgements.
  let pieces: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const piece of packer as AsyncIterable<Uint8Array>) {
      pieces.push(piece);
      size += piece.byteLength;
      if (size >= CHUNK) {
        yield Buffer.concat(pieces, size);
        pieces = [];
        size = 0;
      }
    }
    if (size > 0) yield Buffer.concat(pieces, size);
  } finally {
    packer.destroy();
    await producing;
  }
}

/**
 * An upload as tar. Each entry with `content` needs its `size`; entries without content are
 * sent by hash. `failed` is called for an entry whose content cannot be read (the entry is left
 * out and the stream goes on); any other error ends the stream.
 */
export function packUpload(
  entries: AsyncIterable<UploadEntry>,
  failed?: (entry: UploadEntry, error: unknown) => boolean,
): AsyncGenerator<Uint8Array> {
  return packed(async (packer) => {
    for await (const entry of entries) {
      const pax: Record<string, string> = {};
      if (entry.hash !== undefined) pax[PAX.hash] = entry.hash;
      if (entry.ifMatch !== undefined) pax[PAX.ifMatch] = String(entry.ifMatch);
      if (entry.ifNoneMatch !== undefined) pax[PAX.ifNoneMatch] = entry.ifNoneMatch;
      const name = tarName(entry.path);
      if (entry.content === undefined) {
        pax[PAX.byHash] = '1';
        await packer.add({ name, size: 0, type: 'file', pax }, null);
        continue;
      }
      let body: AsyncIterable<Uint8Array> | Uint8Array = entry.content;
      let size = entry.size;
      if (!(body instanceof Uint8Array)) {
        // The first piece opens the file: a file that cannot be opened is left out, not sent.
        const iterator = body[Symbol.asyncIterator]();
        let first: IteratorResult<Uint8Array>;
        try {
          first = await iterator.next();
        } catch (error) {
          if (failed?.(entry, error)) continue;
          throw error;
        }
        body = resumed(iterator, first);
        if (size === undefined) {
          throw new SatchelError('INVALID_INPUT', `${entry.path}: a streamed entry needs its size`);
        }
        body = size <= WHOLE_MAX ? await whole(body, size) : exactly(body, size);
      } else size = body.byteLength;
      await packer.add({ name, size, type: 'file', pax }, body);
    }
  });
}

/** The entry's bytes, as a stream the caller may leave unread (drained before the next entry). */
function contentOf(entry: PaxEntry): AsyncIterator<Uint8Array> {
  return entry[Symbol.asyncIterator]();
}

async function drain(iterator: AsyncIterator<Uint8Array>): Promise<void> {
  while (!(await iterator.next()).done) {
    /* the unread rest of an entry */
  }
}

function view(iterator: AsyncIterator<Uint8Array>): AsyncIterable<Uint8Array> {
  // Stopping early must not destroy the entry (and the archive with it): it is drained instead.
  return {
    [Symbol.asyncIterator]: () => ({ next: () => iterator.next() }),
  };
}

/** Feeds `body` into a tar extractor, with backpressure; an error of the body ends it. */
function extractFrom(body: AsyncIterable<Uint8Array>) {
  const extractor = extract();
  void (async () => {
    try {
      for await (const piece of body) {
        if (!extractor.write(piece)) await once(extractor, 'drain');
      }
      end(extractor);
    } catch (error) {
      extractor.destroy(error as Error);
    }
  })();
  return extractor;
}

function invalidArchive(detail: string): SatchelError {
  return new SatchelError('INVALID_INPUT', `the batch is not a valid archive: ${detail}`, {
    reason: 'invalid_archive',
  });
}

/**
 * The entries of an uploaded tar, as core takes them: each entry's bytes must be read (or are
 * drained) before the next entry comes. An archive cut short ends with an error, and the entry
 * it was carrying arrives short of its announced size (core refuses to write it).
 */
export async function* extractUpload(body: AsyncIterable<Uint8Array>): AsyncGenerator<UploadEntry> {
  const extractor = extractFrom(body);
  for await (const raw of extractor as unknown as AsyncIterable<PaxEntry>) {
    const { header } = raw;
    const pax = header.pax ?? {};
    const content = contentOf(raw);
    if (header.type !== 'file') {
      await drain(content);
      throw invalidArchive(`${header.name} is a ${header.type}; send regular files only`);
    }
    const ifMatch = pax[PAX.ifMatch];
    const entry: UploadEntry = {
      path: `/${header.name}`,
      size: header.size ?? 0,
      ...(pax[PAX.hash] === undefined ? {} : { hash: pax[PAX.hash] }),
      ...(ifMatch === undefined ? {} : { ifMatch: Number(ifMatch) }),
      ...(pax[PAX.ifNoneMatch] === '*' ? { ifNoneMatch: '*' as const } : {}),
      ...(pax[PAX.byHash] === '1' ? {} : { content: view(content) }),
    };
    yield entry;
    await drain(content);
  }
}

/** A download as tar: each item's info (or error) in a pax header, its bytes as the entry. */
export function packDownload(items: AsyncIterable<DownloadItem>): AsyncGenerator<Uint8Array> {
  return packed(async (packer) => {
    for await (const item of items) {
      const name = tarName(item.path);
      if ('error' in item) {
        const pax = { [PAX.error]: JSON.stringify(item.error) };
        await packer.add({ name, size: 0, type: 'file', pax }, null);
        continue;
      }
      const pax = { [PAX.info]: JSON.stringify(item.info) };
      const { size } = item.info;
      const body = size <= WHOLE_MAX ? await whole(item.body, size) : item.body;
      await packer.add({ name, size, type: 'file', pax }, body);
    }
  });
}

function parsed<T>(
  schema: { safeParse(v: unknown): { success: boolean; data?: T } },
  text: string,
) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidArchive('a pax header is not JSON');
  }
  const result = schema.safeParse(value);
  if (!result.success || result.data === undefined)
    throw invalidArchive('a pax header is malformed');
  return result.data;
}

/**
 * The items of a downloaded tar. Each item's body must be read before the next is asked for;
 * the server verified the bytes against the hash in its info, and so does `verify` here.
 */
export async function* extractDownload(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<DownloadItem> {
  const extractor = extractFrom(body);
  for await (const raw of extractor as unknown as AsyncIterable<PaxEntry>) {
    const pax = raw.header.pax ?? {};
    const content = contentOf(raw);
    const error = pax[PAX.error];
    const infoText = pax[PAX.info];
    if (error !== undefined) {
      yield { path: `/${raw.header.name}`, error: parsed(BatchErrorSchema, error) };
    } else if (infoText !== undefined) {
      const info: FileInfo = parsed(FileInfoSchema, infoText);
      yield { path: info.path, info, body: view(content) };
    } else {
      throw invalidArchive(`${raw.header.name} carries no file info`);
    }
    await drain(content);
  }
}
