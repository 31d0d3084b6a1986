/**
 * Files: listing, and the content of one file — GET/HEAD (conditional, ranged, versioned), PUT
 * (streamed, conditional), POST ?append, DELETE. Bodies are streamed both ways, never buffered.
 */
import {
  baseName,
  type FileInfo,
  type FileStream,
  isSatchelError,
  type Satchel,
} from '@satchel/core';
import { DownloadUrlOptionsSchema, UploadUrlOptionsSchema } from '@satchel/core/schemas';
import { type Context, Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { downloadBody, uploadBody } from '../http/body.js';
import {
  etag,
  evaluateRead,
  type HeaderOf,
  httpDate,
  rangeApplies,
  versionHeaders,
  writeConditions,
} from '../http/conditional.js';
import {
  CONTENT_SAFETY_HEADERS,
  dispositionOf,
  NOSNIFF,
  SANDBOXED,
} from '../http/content-safety.js';
import { contentRange, type SelectedRange, selectRange } from '../http/range.js';
import {
  mutationOptions,
  queryBool,
  queryInt,
  readJson,
  sessionOption,
  urlPath,
} from '../input.js';
import { HttpError } from '../problem.js';

type Ctx = Context<ApiEnv>;

/** Segments before the file path: /v1/workspaces/:ws/files/<path>. */
const PATH_OFFSET = 4;

const CONDITIONAL_HEADERS = [
  'If-Match',
  'If-None-Match',
  'If-Modified-Since',
  'If-Unmodified-Since',
  'Range',
];

function headerOf(c: Ctx): HeaderOf {
  return (name) => c.req.header(name);
}

/**
 * A `?version=N` read names immutable content, cacheable for good; a head read must be
 * revalidated (cheaply, with If-None-Match). `private`: every response depends on the key.
 */
function cacheControl(pinned: boolean): string {
  return pinned ? 'private, max-age=31536000, immutable' : 'private, no-cache';
}

/** The stored path for `Satchel-Path`: each segment percent-encoded, so any name is ASCII. */
export function encodedPath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/**
 * The FileInfo as headers, so a client rebuilds all of it from a read: the validators, type,
 * size, digest, the content-safety headers (http/content-safety.ts), and `Satchel-Path`, `Satchel-Author`, `Satchel-Session` (percent-encoded, absent
 * without a label) and `Satchel-Modified` (ISO 8601 with milliseconds).
 */
export function readHeaders(info: FileInfo, pinned: boolean): Record<string, string> {
  // One object literal: spreading versionHeaders and CONTENT_SAFETY_HEADERS into it cost a
  // small GET 15–20 µs (V8 copies each into a dictionary-mode object).
  const headers: Record<string, string> = {
    ETag: etag(info.seq),
    'Last-Modified': httpDate(info.modifiedAt),
    'Satchel-Version': String(info.seq),
    'Satchel-Type': info.type,
    'Satchel-Path': encodedPath(info.path),
    'Satchel-Author': encodeURIComponent(info.author),
    'Satchel-Modified': info.modifiedAt,
    'Cache-Control': cacheControl(pinned),
    'X-Content-Type-Options': NOSNIFF,
    'Content-Security-Policy': SANDBOXED,
  };
  if (info.session !== null) headers['Satchel-Session'] = encodeURIComponent(info.session);
  if (info.type === 'file') {
    const type = info.contentType ?? 'application/octet-stream';
    headers['Accept-Ranges'] = 'bytes';
    headers['Content-Type'] = type;
    headers['Content-Disposition'] = dispositionOf(baseName(info.path), type);
    headers['Content-Length'] = String(info.size);
  }
  // RFC 9530: lets a client check what it downloaded against the stored SHA-256.
  if (info.hash !== null) {
    headers['Repr-Digest'] = `sha-256=:${Buffer.from(info.hash, 'hex').toString('base64')}:`;
  }
  return headers;
}

function send(c: Ctx, file: FileStream, range: SelectedRange | null, pinned: boolean): Response {
  const headers = readHeaders(file.info, pinned);
  if (range !== null) {
    headers['Content-Range'] = contentRange(range, file.info.size);
    headers['Content-Length'] = String(range.end - range.start);
  }
  const status = range === null ? 200 : 206;
  // Small files come whole from core: sent as one buffer, no stream.
  if (file.bytes !== undefined) {
    c.set('bodyBytes', file.bytes.byteLength);
    return c.body(file.bytes as Uint8Array<ArrayBuffer>, status, headers);
  }
  return c.body(downloadBody(file.body), status, headers);
}

/** The head seq of a path, or null when nothing is there (for If-Match: * and lists). */
async function headSeq(satchel: Satchel, ws: string, path: string): Promise<number | null> {
  try {
    return (await satchel.stat(ws, path)).seq;
  } catch (error) {
    if (isSatchelError(error, 'NOT_FOUND')) return null;
    throw error;
  }
}

async function read(c: Context<ApiEnv, '/workspaces/:ws/files/*'>): Promise<Response> {
  const satchel = c.get('satchel');
  const ws = c.req.param('ws');
  const path = urlPath(c, PATH_OFFSET);
  const version = queryInt(c, 'version');
  // `?at=` a seq or a snapshot: the workspace as it was (core resolves and checks it).
  const at = c.req.query('at');
  const when = at === undefined ? { version } : { version, at };
  // A version or a seq names immutable content; a snapshot's name can be given to another seq.
  const pinned = version !== undefined || (at !== undefined && /^[0-9]+$/.test(at));
  const header = headerOf(c);
  const isHead = c.req.method === 'HEAD';
  // The common case costs one engine call; validators and ranges need the stat first.
  if (!isHead && !CONDITIONAL_HEADERS.some((name) => header(name) !== undefined)) {
    const file = await satchel.readFile(ws, path, { ...sessionOption(c), ...when });
    return send(c, file, null, pinned);
  }
  const info = await satchel.stat(ws, path, when);
  if (evaluateRead(header, info) === 'not-modified') {
    return c.body(null, 304, {
      ...versionHeaders(info),
      'Cache-Control': cacheControl(pinned),
      ...CONTENT_SAFETY_HEADERS,
    });
  }
  if (isHead) return c.body(null, 200, readHeaders(info, pinned));
  const range =
    info.type === 'file' && rangeApplies(header, info)
      ? selectRange(header('Range'), info.size)
      : null;
  // Pinned to the stat's version, so the bytes are the ones the validators describe.
  const file = await satchel.readFile(ws, path, {
    ...sessionOption(c),
    version: info.seq,
    ...(range === null ? {} : { range }),
  });
  return send(c, file, range, pinned);
}

/** A write by `Satchel-Content-Hash` names its content: any body byte is a mistake (400). */
async function refuseBody(body: AsyncIterable<Uint8Array>): Promise<void> {
  const refused = () =>
    new HttpError('INVALID_INPUT', 'a write by Satchel-Content-Hash carries no body', {
      data: { field: 'Satchel-Content-Hash' },
    });
  for await (const piece of body) if (piece.byteLength > 0) throw refused();
}

/**
 * `POST …/files/<path>?upload-url` / `?download-url` with the options as an optional JSON body:
 * `{url, expiresAt}`. Without SATCHEL_PUBLIC_URL the engine signs a relative URL, made absolute
 * here with the origin the request reached.
 */
async function transferUrl(
  c: Context<ApiEnv, '/workspaces/:ws/files/*'>,
  config: RouteConfig,
): Promise<Response> {
  const satchel = c.get('satchel');
  const ws = c.req.param('ws');
  const path = urlPath(c, PATH_OFFSET);
  const upload = c.req.query('upload-url') !== undefined;
  const schema = upload ? UploadUrlOptionsSchema : DownloadUrlOptionsSchema;
  const options = await readJson(c, schema, config.maxJsonBytes, { optional: true });
  const signed = upload
    ? await satchel.createUploadUrl(ws, path, options)
    : await satchel.createDownloadUrl(ws, path, options);
  const url = signed.url.startsWith('/') ? `${new URL(c.req.url).origin}${signed.url}` : signed.url;
  return c.json({ ...signed, url }, 201, { 'Cache-Control': 'no-store' });
}

/** Routes under /v1/workspaces/:ws/files. */
export function fileRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  // HEAD is routed here too (Hono answers HEAD with the GET route); `read` tells them apart.
  app.get('/workspaces/:ws/files/*', read);

  /** What PUT and POST ?append share: the target, its call options and the body. */
  async function upload(c: Context<ApiEnv, '/workspaces/:ws/files/*'>, createOnly: boolean) {
    const satchel = c.get('satchel');
    const ws = c.req.param('ws');
    const path = urlPath(c, PATH_OFFSET);
    const message = c.req.query('message');
    const conditions = await writeConditions(headerOf(c), path, () => headSeq(satchel, ws, path), {
      createOnly,
    });
    const options = {
      ...mutationOptions(c),
      ...conditions,
      ...(message === undefined ? {} : { message }),
    };
    return { satchel, ws, path, options, body: uploadBody(c, config.maxBodyBytes) };
  }

  app.put('/workspaces/:ws/files/*', async (c) => {
    const { satchel, ws, path, options, body } = await upload(c, true);
    // `Satchel-Content-Hash` and no body: content the workspace already holds (404 if not).
    const byHash = c.req.header('Satchel-Content-Hash');
    if (byHash !== undefined) await refuseBody(body);
    // A declared length lets core refuse a write over a quota before reading the body.
    const length = c.req.header('Content-Length');
    const size = length !== undefined && /^[0-9]+$/.test(length) ? Number(length) : undefined;
    const info =
      byHash === undefined
        ? await satchel.writeFile(
            ws,
            path,
            body,
            size === undefined ? options : { ...options, size },
          )
        : await satchel.writeFileByHash(ws, path, byHash.trim(), options);
    // Only a create-only write is known to have created the file (core does not say).
    return c.json(info, options.ifNoneMatch === '*' ? 201 : 200, versionHeaders(info));
  });

  app.post('/workspaces/:ws/files/*', async (c) => {
    if (c.req.query('upload-url') !== undefined || c.req.query('download-url') !== undefined) {
      return transferUrl(c, config);
    }
    if (c.req.query('append') === undefined) {
      throw new HttpError(
        'INVALID_INPUT',
        'POST to a file appends to it (?append) or signs a URL (?upload-url, ?download-url)',
        { data: { field: 'append' } },
      );
    }
    const { satchel, ws, path, options, body } = await upload(c, false);
    const info = await satchel.appendFile(ws, path, body, options);
    return c.json(info, 200, versionHeaders(info));
  });

  app.delete('/workspaces/:ws/files/*', async (c) => {
    const satchel = c.get('satchel');
    const ws = c.req.param('ws');
    const path = urlPath(c, PATH_OFFSET);
    const options = mutationOptions(c);
    const recursive = queryBool(c, 'recursive');
    const conditions = await writeConditions(headerOf(c), path, () => headSeq(satchel, ws, path), {
      createOnly: false,
    });
    const result = await satchel.remove(ws, path, {
      ...options,
      ...conditions,
      ...(recursive === undefined ? {} : { recursive }),
    });
    return c.json(result);
  });

  return app;
}
