/**
 * A small S3-compatible HTTP server for tests and benchmarks, on 127.0.0.1, storing objects as
 * plain files (so tests can damage them behind the store's back). It speaks the REST protocol
 * the AWS SDK uses with path-style addressing: Put/Get (Range)/Head/Delete/Copy object,
 * ListObjectsV2, multipart uploads (UploadPart, UploadPartCopy, Complete, Abort), Content-MD5
 * checks (BadDigest) and `If-None-Match: *` on PutObject, CopyObject and
 * CompleteMultipartUpload (412). Signatures are not checked. Why not s3rver: it ignores
 * `If-None-Match` and Content-MD5, which are what write-once and damaged uploads rest on.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

export interface S3TestServer {
  /** http://127.0.0.1:PORT */
  readonly endpoint: string;
  readonly bucket: string;
  /** The file that holds `key` (exists only while the object does). */
  pathOf(key: string): string;
  /** Keys stored now, sorted. */
  keys(): Promise<string[]>;
  /** Multipart uploads started and not yet completed or aborted. */
  readonly openUploads: ReadonlySet<string>;
  /** Requests seen, as "METHOD key?query" lines (for asserting what was sent). */
  readonly requests: string[];
  /** Treat If-None-Match as unknown (ignore it), as some S3-compatible servers do. */
  ignoreConditions: boolean;
  close(): Promise<void>;
}

export const TEST_S3_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' } as const;

/** Starts the server with one bucket, `bucket`, storing under `dir`. */
export async function startS3Server(dir: string, bucket = 'satchel'): Promise<S3TestServer> {
  const objects = join(dir, 'objects');
  const uploads = join(dir, 'uploads');
  await mkdir(objects, { recursive: true });
  await mkdir(uploads, { recursive: true });
  const openUploads = new Set<string>();
  const requests: string[] = [];
  const pathOf = (key: string) => join(objects, encodeURIComponent(key));
  const state = { ignoreConditions: false };

  async function exists(path: string): Promise<boolean> {
    return stat(path).then(
      () => true,
      () => false,
    );
  }

  /** Streams the request body into `path`, checking Content-MD5; returns the MD5 hex. */
  async function receive(req: IncomingMessage, path: string): Promise<string> {
    const md5 = createHash('md5');
    req.on('data', (piece: Buffer) => md5.update(piece));
    await pipeline(req, createWriteStream(path));
    const hex = md5.digest('hex');
    const claimed = req.headers['content-md5'];
    if (typeof claimed === 'string' && Buffer.from(claimed, 'base64').toString('hex') !== hex) {
      await rm(path, { force: true });
      throw new S3Error(400, 'BadDigest', 'The Content-MD5 you specified did not match');
    }
    return hex;
  }

  function conditional(req: IncomingMessage): boolean {
    return !state.ignoreConditions && req.headers['if-none-match'] === '*';
  }

  async function place(tmp: string, key: string, req: IncomingMessage): Promise<void> {
    const final = pathOf(key);
    if (conditional(req) && (await exists(final))) {
      await rm(tmp, { force: true });
      throw new S3Error(412, 'PreconditionFailed', 'At least one of the preconditions failed');
    }
    await rename(tmp, final);
  }

  function sourceOf(req: IncomingMessage): string {
    const raw = String(req.headers['x-amz-copy-source'] ?? '');
    const path = decodeURIComponent(raw.replace(/^\//, ''));
    const slash = path.indexOf('/');
    return path.slice(slash + 1);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const [, bucketName = '', ...rest] = url.pathname.split('/');
    const key = rest.map(decodeURIComponent).join('/');
    const q = url.searchParams;
    const shown = new URLSearchParams(q);
    shown.delete('x-id');
    requests.push(`${req.method} ${key}${shown.size > 0 ? `?${shown}` : ''}`);
    if (bucketName !== bucket) throw new S3Error(404, 'NoSuchBucket', 'no such bucket');
    const method = req.method ?? 'GET';
    const tmp = join(uploads, `put-${randomUUID()}`);

    if (key === '' && method === 'GET') return list(q, res);
    if (method === 'POST' && q.has('uploads')) {
      const id = randomUUID();
      openUploads.add(id);
      await mkdir(join(uploads, id));
      return xml(
        res,
        200,
        `<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${esc(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
      );
    }
    if (q.has('uploadId')) {
      const id = q.get('uploadId') ?? '';
      if (!openUploads.has(id)) throw new S3Error(404, 'NoSuchUpload', 'no such upload');
      const partsDir = join(uploads, id);
      if (method === 'PUT') {
        const n = Number(q.get('partNumber'));
        const partPath = join(partsDir, String(n).padStart(5, '0'));
        let md5: string;
        if (req.headers['x-amz-copy-source']) {
          const range = /bytes=(\d+)-(\d+)/.exec(String(req.headers['x-amz-copy-source-range']));
          const source = pathOf(sourceOf(req));
          if (!range || !(await exists(source))) throw new S3Error(404, 'NoSuchKey', 'no source');
          const hash = createHash('md5');
          const input = createReadStream(source, {
            start: Number(range[1]),
            end: Number(range[2]),
          });
          input.on('data', (piece) => hash.update(piece));
          await pipeline(input, createWriteStream(partPath));
          md5 = hash.digest('hex');
          return xml(res, 200, `<CopyPartResult><ETag>"${md5}"</ETag></CopyPartResult>`);
        }
        md5 = await receive(req, partPath);
        res.setHeader('ETag', `"${md5}"`);
        res.writeHead(200).end();
        return;
      }
      if (method === 'DELETE') {
        openUploads.delete(id);
        await rm(partsDir, { recursive: true, force: true });
        res.writeHead(204).end();
        return;
      }
      if (method === 'POST') {
        const body = await text(req);
        const numbers = [...body.matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) => m[1]);
        const out = createWriteStream(tmp);
        out.setMaxListeners(0); // one pipeline per part, each adding its listeners
        const md5s = createHash('md5');
        for (const n of numbers) {
          const partPath = join(partsDir, String(n).padStart(5, '0'));
          md5s.update(
            Buffer.from(
              createHash('md5')
                .update(await readFile(partPath))
                .digest(),
            ),
          );
          await pipeline(createReadStream(partPath), out, { end: false });
        }
        await new Promise<void>((resolve, reject) =>
          out.end((e?: Error | null) => (e ? reject(e) : resolve())),
        );
        await place(tmp, key, req);
        openUploads.delete(id);
        await rm(partsDir, { recursive: true, force: true });
        const etag = `${md5s.digest('hex')}-${numbers.length}`;
        return xml(
          res,
          200,
          `<CompleteMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${esc(key)}</Key><ETag>"${etag}"</ETag></CompleteMultipartUploadResult>`,
        );
      }
    }
    const path = pathOf(key);
    if (method === 'PUT' && req.headers['x-amz-copy-source']) {
      const source = pathOf(sourceOf(req));
      if (!(await exists(source))) throw new S3Error(404, 'NoSuchKey', 'no such source key');
      const md5 = createHash('md5');
      const input = createReadStream(source);
      input.on('data', (piece) => md5.update(piece));
      await pipeline(input, createWriteStream(tmp));
      await place(tmp, key, req);
      return xml(
        res,
        200,
        `<CopyObjectResult><ETag>"${md5.digest('hex')}"</ETag><LastModified>${new Date().toISOString()}</LastModified></CopyObjectResult>`,
      );
    }
    if (method === 'PUT') {
      if (conditional(req) && (await exists(path))) {
        req.resume();
        throw new S3Error(412, 'PreconditionFailed', 'At least one of the preconditions failed');
      }
      const md5 = await receive(req, tmp);
      await place(tmp, key, req);
      res.setHeader('ETag', `"${md5}"`);
      res.writeHead(200).end();
      return;
    }
    if (method === 'DELETE') {
      await rm(path, { force: true });
      res.writeHead(204).end();
      return;
    }
    if (method === 'GET' || method === 'HEAD') {
      const fh = await open(path, 'r').catch(() => null);
      if (fh === null) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.');
      try {
        const { size } = await fh.stat();
        let start = 0;
        let end = size - 1;
        const range = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers.range ?? ''));
        if (range) {
          start = Number(range[1]);
          end = range[2] === '' ? size - 1 : Math.min(Number(range[2]), size - 1);
          if (start >= size)
            throw new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable');
          res.setHeader('Content-Range', `bytes ${start}-${end}/${size}`);
        }
        res.setHeader('Content-Length', String(Math.max(0, end - start + 1)));
        res.setHeader('Accept-Ranges', 'bytes');
        res.setHeader('Content-Type', 'application/octet-stream');
        res.writeHead(range ? 206 : 200);
        if (method === 'HEAD' || size === 0) {
          res.end();
          return;
        }
        await pipeline(fh.createReadStream({ start, end, autoClose: false }), res);
      } finally {
        await fh.close();
      }
      return;
    }
    throw new S3Error(405, 'MethodNotAllowed', `${method} is not supported here`);
  }

  async function list(q: URLSearchParams, res: ServerResponse): Promise<void> {
    const prefix = q.get('prefix') ?? '';
    const max = Math.min(Number(q.get('max-keys') ?? 1000), 1000);
    const after = q.get('continuation-token') ?? '';
    const all = (await keys()).filter((k) => k.startsWith(prefix) && k > after);
    const page = all.slice(0, max);
    const truncated = all.length > page.length;
    const contents = page
      .map((k) => `<Contents><Key>${esc(k)}</Key><Size>0</Size></Contents>`)
      .join('');
    const next = truncated
      ? `<NextContinuationToken>${esc(page.at(-1) ?? '')}</NextContinuationToken>`
      : '';
    return xml(
      res,
      200,
      `<ListBucketResult><Name>${bucket}</Name><Prefix>${esc(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${next}</ListBucketResult>`,
    );
  }

  async function keys(): Promise<string[]> {
    return (await readdir(objects)).map(decodeURIComponent).sort();
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const e = error instanceof S3Error ? error : new S3Error(500, 'InternalError', String(error));
      if (res.headersSent) {
        res.destroy();
        return;
      }
      req.resume();
      xml(
        res,
        e.status,
        `<Error><Code>${e.code}</Code><Message>${esc(e.message)}</Message></Error>`,
      );
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    pathOf,
    keys,
    openUploads,
    requests,
    get ignoreConditions() {
      return state.ignoreConditions;
    },
    set ignoreConditions(value: boolean) {
      state.ignoreConditions = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function xml(res: ServerResponse, status: number, body: string): void {
  const data = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': data.byteLength });
  res.end(data);
}

async function text(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const piece of req) parts.push(piece as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function esc(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
