/**
 * The client's hand-written requests for large files: a part of a resumable upload
 * (`PATCH …/uploads/:id` with `Upload-Offset`), and the signed transfer URLs, which share the
 * file route (`POST …/files/<path>?upload-url` / `?download-url`).
 */
import type { OperationMethods, OperationName } from '../operations/index.js';
import type { Content } from '../operations/satchel.js';
import { parseOptions } from '../options.js';
import * as S from '../schemas/index.js';
import type { RemoteContext } from './custom-calls.js';
import { urlPath } from './file-headers.js';
import { segment, UploadStream } from './http.js';

type Custom<K extends OperationName> = (
  remote: RemoteContext,
  args: Parameters<OperationMethods[K]>,
) => ReturnType<OperationMethods[K]>;

const ws = (name: string) => `/v1/workspaces/${segment(name)}`;
const file = (workspace: string, path: string) => `${ws(workspace)}/files/${urlPath(path)}`;

function requestBody(content: Content): string | Uint8Array | UploadStream {
  if (typeof content === 'string' || content instanceof Uint8Array) return content;
  return new UploadStream(content);
}

/** `PATCH …/uploads/:id` with `Upload-Offset: <offset>`; the body is the part's bytes. */
const appendUpload: Custom<'appendUpload'> = (remote, [workspace, id, offset, content]) =>
  remote.http.json(S.UploadSchema, {
    method: 'PATCH',
    path: `${ws(workspace)}/uploads/${segment(id)}`,
    headers: { ...remote.headers(), 'Upload-Offset': String(offset) },
    body: requestBody(content),
  });

const createUploadUrl: Custom<'createUploadUrl'> = (remote, [workspace, path, options]) =>
  remote.http.json(S.TransferUrlSchema, {
    method: 'POST',
    path: file(workspace, path),
    query: { 'upload-url': '' },
    headers: remote.headers(),
    json: parseOptions(S.UploadUrlOptionsSchema, options ?? {}),
  });

const createDownloadUrl: Custom<'createDownloadUrl'> = (remote, [workspace, path, options]) =>
  remote.http.json(S.TransferUrlSchema, {
    method: 'POST',
    path: file(workspace, path),
    query: { 'download-url': '' },
    headers: remote.headers(),
    json: parseOptions(S.DownloadUrlOptionsSchema, options ?? {}),
  });

export const TRANSFER_CALLS = { appendUpload, createUploadUrl, createDownloadUrl } as const;
