/**
 * The client's requests for the operations whose routes are written by hand (their
 * declarations say why): file content both ways, stat as headers, delete with conditional
 * headers, the diff, the change feed, lock release and break on one route, and the audit log.
 */
import { Readable } from 'node:stream';
import { isSatchelError, SatchelError } from '../errors.js';
import type { OperationMethods, OperationName } from '../operations/index.js';
import type { BatchFile, Content, FileStream } from '../operations/satchel.js';
import { parseOptions } from '../options.js';
import * as S from '../schemas/index.js';
import { checkTextOptions, sliceText, utf8Lines } from '../text-lines.js';
import { BATCH_CALLS } from './batch-calls.js';
import {
  conditionHeaders,
  infoFromHeaders,
  rangeHeader,
  servedRange,
  urlPath,
} from './file-headers.js';
import { type HttpClient, type RequestSpec, segment, UploadStream } from './http.js';
import { TRANSFER_CALLS } from './transfer-calls.js';

/** What a hand-written request needs: the client and the session header of a call. */
export interface RemoteContext {
  readonly http: HttpClient;
  /** `Satchel-Session`: the call's label, else the client's. */
  readonly headers: (session?: unknown) => Record<string, string | undefined>;
}

type Custom<K extends OperationName> = (
  remote: RemoteContext,
  args: Parameters<OperationMethods[K]>,
) => ReturnType<OperationMethods[K]>;

const ws = (name: string) => `/v1/workspaces/${segment(name)}`;
const file = (workspace: string, path: string) => `${ws(workspace)}/files/${urlPath(path)}`;

/** One file of a batch as the API's JSON: text as it is, bytes as base64. */
function batchFileBody(file: BatchFile): Record<string, unknown> {
  const { path, content, ifMatch, ifNoneMatch } = file;
  const encoded =
    content instanceof Uint8Array
      ? {
          content: Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString(
            'base64',
          ),
          encoding: 'base64',
        }
      : { content };
  return { path, ...encoded, ifMatch, ifNoneMatch };
}

function requestBody(content: Content): string | Uint8Array | UploadStream {
  if (typeof content === 'string' || content instanceof Uint8Array) return content;
  return new UploadStream(content);
}

function isEmptyFileRange(error: unknown): boolean {
  return (
    isSatchelError(error, 'INVALID_INPUT') &&
    error.data.reason === 'range_not_satisfiable' &&
    error.data.size === 0
  );
}

const BatchResult = S.pageSchema(S.FileInfoSchema);
const AuditPage = S.pageSchema(S.AuditEntrySchema);

const writeFile: Custom<'writeFile'> = (remote, [workspace, path, content, options]) => {
  // The size travels as the request's own length when the body is in memory.
  const {
    session,
    message,
    size: _size,
    ...conditions
  } = parseOptions(S.WriteFileOptionsSchema, options);
  return remote.http.json(S.FileInfoSchema, {
    method: 'PUT',
    path: file(workspace, path),
    query: { message },
    headers: { ...remote.headers(session), ...conditionHeaders(conditions) },
    body: requestBody(content),
  });
};

/** `PUT …/files/<path>` with `Satchel-Content-Hash` and no body: content the server has. */
const writeFileByHash: Custom<'writeFileByHash'> = (remote, [workspace, path, hash, options]) => {
  const digest = parseOptions(S.ContentHashSchema, hash);
  const { session, message, ...conditions } = parseOptions(S.WriteOptionsSchema, options);
  return remote.http.json(S.FileInfoSchema, {
    method: 'PUT',
    path: file(workspace, path),
    query: { message },
    headers: {
      ...remote.headers(session),
      ...conditionHeaders(conditions),
      'Satchel-Content-Hash': digest,
    },
    body: '',
  });
};

/**
 * `POST …/batch`: all files in one transaction, or none. Text travels as it is, bytes as
 * base64; the whole batch is one JSON body (the server's JSON limit, default 4 MiB, bounds it).
 */
const writeFiles: Custom<'writeFiles'> = async (remote, [workspace, files, options]) => {
  const { session, lockToken } = parseOptions(S.MutationOptionsSchema, options);
  if (!Array.isArray(files) || files.length === 0) {
    throw new SatchelError('INVALID_INPUT', 'files must be a non-empty array', { field: 'files' });
  }
  const page = await remote.http.json(BatchResult, {
    method: 'POST',
    path: `${ws(workspace)}/batch`,
    headers: { ...remote.headers(session), ...conditionHeaders({ lockToken }) },
    json: { files: files.map(batchFileBody) },
  });
  return page.items;
};

const appendFile: Custom<'appendFile'> = (remote, [workspace, path, content, options]) => {
  const { session, message, ...conditions } = parseOptions(S.AppendOptionsSchema, options);
  return remote.http.json(S.FileInfoSchema, {
    method: 'POST',
    path: file(workspace, path),
    query: { append: '', message },
    headers: { ...remote.headers(session), ...conditionHeaders(conditions) },
    body: requestBody(content),
  });
};

/** HTTP has no empty byte range; the engine answers one with no bytes. */
async function emptyRead(
  remote: RemoteContext,
  workspace: string,
  path: string,
  when: { version?: number | undefined; at?: number | string | undefined },
  range: S.ByteRange,
): Promise<FileStream> {
  const info = await stat(remote, [workspace, path, when]);
  if (info.type !== 'file') {
    throw new SatchelError('INVALID_INPUT', `${info.path} is a directory; list it instead`, {
      path: info.path,
    });
  }
  const { start } = range;
  const end = Math.min(range.end ?? info.size, info.size);
  if (start > info.size || (start > 0 && start >= info.size) || end < start) {
    throw new SatchelError(
      'INVALID_INPUT',
      `range ${start}-${end} is not satisfiable for ${info.path} (${info.size} bytes)`,
      { path: info.path, size: info.size, reason: 'range_not_satisfiable' },
    );
  }
  return { info, body: Readable.from([]), range: { start, end } };
}

const readFile: Custom<'readFile'> = async (remote, [workspace, path, options]) => {
  const { session, version, at, range } = parseOptions(S.ReadOptionsSchema, options);
  if (range?.end !== undefined && range.end <= range.start) {
    return emptyRead(remote, workspace, path, { version, at }, range);
  }
  const spec = (wanted: S.ByteRange | undefined): RequestSpec => ({
    method: 'GET',
    path: file(workspace, path),
    query: { version, at },
    headers: { ...remote.headers(session), Range: rangeHeader(wanted) },
  });
  let wanted = range;
  const res = await remote.http.send(spec(wanted)).catch((error: unknown) => {
    // An empty file has no byte 0: HTTP refuses `bytes=0-N` where the engine reads nothing.
    if (range?.start === 0 && isEmptyFileRange(error)) {
      wanted = undefined;
      return remote.http.send(spec(wanted));
    }
    throw error;
  });
  const info = infoFromHeaders(path, res.headers);
  return {
    info,
    body: Readable.from(remote.http.pieces(res), { objectMode: false }),
    range: servedRange(res.headers, res.status, wanted, info.size),
  };
};

/** Reads the file and slices it here, by the engine's own rules. */
const readText: Custom<'readText'> = async (remote, [workspace, path, options]) => {
  const parsed = parseOptions(S.ReadTextOptionsSchema, options);
  checkTextOptions(parsed);
  const { info, body } = await readFile(remote, [
    workspace,
    path,
    { session: parsed.session, version: parsed.version, at: parsed.at },
  ]);
  return sliceText(info, body, parsed);
};

const stat: Custom<'stat'> = async (remote, [workspace, path, options]) => {
  const { version, at } = parseOptions(S.ReadOptionsSchema, options);
  const res = await remote.http.send({
    method: 'HEAD',
    path: file(workspace, path),
    query: { version, at },
    headers: remote.headers(),
  });
  return infoFromHeaders(path, res.headers);
};

const remove: Custom<'remove'> = (remote, [workspace, path, options]) => {
  const { session, recursive, ...conditions } = parseOptions(S.RemoveOptionsSchema, options);
  return remote.http.json(S.RemoveResultSchema, {
    method: 'DELETE',
    path: file(workspace, path),
    query: { recursive },
    headers: { ...remote.headers(session), ...conditionHeaders(conditions) },
  });
};

const diff: Custom<'diff'> = (remote, [workspace, path, options = {}]) =>
  remote.http.json(S.DiffResultSchema, {
    method: 'GET',
    path: `${ws(workspace)}/diff`,
    headers: remote.headers(options.session),
    query: { path, from: options.from, to: options.to, context: options.context },
  });

/** `GET …/changes?after=&limit=&path=&wait=`: the request stays open while the server waits. */
const listChanges: Custom<'listChanges'> = (remote, [workspace, options = {}]) =>
  remote.http.json(S.ChangesPageSchema, {
    method: 'GET',
    path: `${ws(workspace)}/changes`,
    headers: remote.headers(options.session),
    query: {
      after: options.after,
      limit: options.limit,
      path: options.path,
      wait: options.waitSeconds,
    },
  });

const lock = (workspace: string, id: string) => `${ws(workspace)}/locks/${segment(id)}`;

const releaseLock: Custom<'releaseLock'> = (remote, [workspace, id, options = {}]) =>
  remote.http.empty({
    method: 'DELETE',
    path: lock(workspace, id),
    headers: remote.headers(options.session),
  });

const breakLock: Custom<'breakLock'> = (remote, [workspace, id, options = {}]) =>
  remote.http.json(S.LockSchema, {
    method: 'DELETE',
    path: lock(workspace, id),
    headers: remote.headers(options.session),
    query: { break: true },
  });

const listAudit: Custom<'listAudit'> = (remote, [options = {}]) =>
  remote.http.json(AuditPage, {
    method: 'GET',
    path: options.workspace === undefined ? '/v1/audit' : `${ws(options.workspace)}/audit`,
    headers: remote.headers(),
    query: { after: options.cursor, limit: options.limit, server: options.server },
  });

/** Requests of the operations declared `custom`, by operation name. */
export const CUSTOM_CALLS: { readonly [K in OperationName]?: Custom<K> } = {
  writeFile,
  writeFileByHash,
  writeFiles,
  appendFile,
  readFile,
  readText,
  stat,
  remove,
  diff,
  listChanges,
  releaseLock,
  breakLock,
  listAudit,
  ...TRANSFER_CALLS,
  ...BATCH_CALLS,
};

/** `GET /v1/audit/export`, split into JSON lines as they arrive. */
export async function* exportAudit(remote: RemoteContext): AsyncIterable<string> {
  const res = await remote.http.send({
    method: 'GET',
    path: '/v1/audit/export',
    headers: remote.headers(),
  });
  for await (const line of utf8Lines(remote.http.pieces(res))) {
    if (!line.endsWith('\n')) {
      throw new SatchelError('INTERNAL', `the audit export from ${remote.http.url} ended mid-line`);
    }
    yield line;
  }
}
