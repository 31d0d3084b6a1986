/**
 * The client's hand-written requests for batch transfer: `POST …/batch/upload` sends a tar
 * stream and reads one JSON line per file as the server commits it; `POST …/batch/download`
 * sends the list of files and reads a tar stream back (transfer/batch-tar.ts).
 */
import { isSatchelError, SatchelError } from '../errors.js';
import type { OperationMethods, OperationName } from '../operations/index.js';
import type { DownloadItem } from '../operations/satchel.js';
import { parseOptions } from '../options.js';
import * as S from '../schemas/index.js';
import { utf8Lines } from '../text-lines.js';
import { extractDownload, packUpload } from '../transfer/batch-tar.js';
import type { RemoteContext } from './custom-calls.js';
import { conditionHeaders } from './file-headers.js';
import { segment, UploadStream } from './http.js';

type Custom<K extends OperationName> = (
  remote: RemoteContext,
  args: Parameters<OperationMethods[K]>,
) => ReturnType<OperationMethods[K]>;

const ws = (name: string) => `/v1/workspaces/${segment(name)}`;

/**
 * True for the answer of a server that has no such route (an older one): callers fall back to
 * the calls it has. Never true for a refusal of the call itself.
 */
export function isMissingRoute(error: unknown): boolean {
  return isSatchelError(error, 'INTERNAL') && error.data.reason === 'unsupported_route';
}

/** One line of the upload's answer: a file's outcome, or the end. */
function uploadLine(line: string, url: string): S.UploadItem | { end: true } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new SatchelError(
      'INTERNAL',
      `the batch answer from ${url} holds a line that is not JSON`,
    );
  }
  if (typeof value === 'object' && value !== null && (value as { end?: unknown }).end === true) {
    return { end: true };
  }
  const item = S.UploadItemSchema.safeParse(value);
  if (!item.success) {
    throw new SatchelError('INTERNAL', `the batch answer from ${url} holds an unexpected line`);
  }
  return item.data;
}

const uploadFiles: Custom<'uploadFiles'> = async (remote, [workspace, entries, options]) => {
  const { session, lockToken, message } = parseOptions(S.UploadOptionsSchema, options);
  const res = await remote.http.send({
    method: 'POST',
    path: `${ws(workspace)}/batch/upload`,
    query: { message },
    headers: {
      ...remote.headers(session),
      ...conditionHeaders({ lockToken }),
    },
    body: new UploadStream(packUpload(entries)),
  });
  const items: S.UploadItem[] = [];
  for await (const raw of utf8Lines(remote.http.pieces(res))) {
    const line = uploadLine(raw, remote.http.url);
    if ('end' in line) return { items };
    items.push(line);
  }
  throw new SatchelError(
    'INTERNAL',
    `the batch answer from ${remote.http.url} ended after ${items.length} files, before its end`,
  );
};

const downloadFiles: Custom<'downloadFiles'> = async (remote, [workspace, files, options]) => {
  const list = parseOptions(S.DownloadFilesSchema, files);
  const { session } = parseOptions(S.MutationOptionsSchema.pick({ session: true }), options);
  const res = await remote.http.send({
    method: 'POST',
    path: `${ws(workspace)}/batch/download`,
    headers: remote.headers(session),
    json: { files: list },
  });
  return extractDownload(remote.http.pieces(res)) as AsyncIterable<DownloadItem>;
};

export const BATCH_CALLS = { uploadFiles, downloadFiles };
