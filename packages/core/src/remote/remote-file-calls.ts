/**
 * The file half of RemoteSatchel (remote-satchel.ts): workspaces, file content, the tree,
 * history and the change feed over the REST API (request helpers: remote-base.ts).
 */
import { Readable } from 'node:stream';
import { parseOptions } from '../engine/context.js';
import { checkTextOptions, sliceText } from '../engine/text-lines.js';
import { isSatchelError, SatchelError } from '../errors.js';
import type { BatchFile, Content, FileStream } from '../satchel.js';
import * as S from '../schemas.js';
import {
  conditionHeaders,
  infoFromHeaders,
  rangeHeader,
  servedRange,
  urlPath,
} from './file-headers.js';
import { type RequestSpec, UploadStream } from './http.js';

const WorkspacePage = S.pageSchema(S.WorkspaceSchema);
const VersionPage = S.pageSchema(S.VersionSchema);

const BatchResult = S.pageSchema(S.FileInfoSchema);

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

import { RemoteBase } from './remote-base.js';

/** Workspaces, files, tree, history and changes over HTTP; see RemoteSatchel for the contract. */
export class RemoteFileCalls extends RemoteBase {
  // Workspaces

  async createWorkspace(name: string, options: S.CallOptions = {}): Promise<S.Workspace> {
    return this.http.json(S.WorkspaceSchema, {
      method: 'POST',
      path: '/v1/workspaces',
      headers: this.headers(options.session),
      json: { name },
    });
  }

  async listWorkspaces(options: S.PageOptions = {}): Promise<S.Page<S.Workspace>> {
    return this.http.json(WorkspacePage, {
      method: 'GET',
      path: '/v1/workspaces',
      headers: this.headers(),
      query: { cursor: options.cursor, limit: options.limit },
    });
  }

  async getWorkspace(name: string): Promise<S.WorkspaceInfo> {
    return this.http.json(S.WorkspaceInfoSchema, {
      method: 'GET',
      path: this.ws(name),
      headers: this.headers(),
    });
  }

  async deleteWorkspace(name: string, options: S.CallOptions = {}): Promise<void> {
    return this.http.empty({
      method: 'DELETE',
      path: this.ws(name),
      headers: this.headers(options.session),
    });
  }

  // File content

  async writeFile(
    workspace: string,
    path: string,
    content: Content,
    options: S.WriteOptions = {},
  ): Promise<S.FileInfo> {
    const { session, message, ...conditions } = parseOptions(S.WriteOptionsSchema, options);
    return this.http.json(S.FileInfoSchema, {
      method: 'PUT',
      path: this.file(workspace, path),
      query: { message },
      headers: { ...this.headers(session), ...conditionHeaders(conditions) },
      body: requestBody(content),
    });
  }

  /** `PUT …/files/<path>` with `Satchel-Content-Hash` and no body: content the server has. */
  async writeFileByHash(
    workspace: string,
    path: string,
    hash: string,
    options: S.WriteOptions = {},
  ): Promise<S.FileInfo> {
    const digest = parseOptions(S.ContentHashSchema, hash);
    const { session, message, ...conditions } = parseOptions(S.WriteOptionsSchema, options);
    return this.http.json(S.FileInfoSchema, {
      method: 'PUT',
      path: this.file(workspace, path),
      query: { message },
      headers: {
        ...this.headers(session),
        ...conditionHeaders(conditions),
        'Satchel-Content-Hash': digest,
      },
      body: '',
    });
  }

  /**
   * `POST …/batch`: all files in one transaction, or none. Text travels as it is, bytes as
   * base64; the whole batch is one JSON body (the server's JSON limit, default 4 MiB, bounds it).
   */
  async writeFiles(
    workspace: string,
    files: readonly BatchFile[],
    options: S.MutationOptions = {},
  ): Promise<S.FileInfo[]> {
    const { session, lockToken } = parseOptions(S.MutationOptionsSchema, options);
    if (!Array.isArray(files) || files.length === 0) {
      throw new SatchelError('INVALID_INPUT', 'files must be a non-empty array', {
        field: 'files',
      });
    }
    const page = await this.http.json(BatchResult, {
      method: 'POST',
      path: `${this.ws(workspace)}/batch`,
      headers: { ...this.headers(session), ...conditionHeaders({ lockToken }) },
      json: { files: files.map(batchFileBody) },
    });
    return page.items;
  }

  async appendFile(
    workspace: string,
    path: string,
    content: Content,
    options: S.AppendOptions = {},
  ): Promise<S.FileInfo> {
    const { session, message, ...conditions } = parseOptions(S.AppendOptionsSchema, options);
    return this.http.json(S.FileInfoSchema, {
      method: 'POST',
      path: this.file(workspace, path),
      query: { append: '', message },
      headers: { ...this.headers(session), ...conditionHeaders(conditions) },
      body: requestBody(content),
    });
  }

  async readFile(
    workspace: string,
    path: string,
    options: S.ReadOptions = {},
  ): Promise<FileStream> {
    const { session, version, range } = parseOptions(S.ReadOptionsSchema, options);
    // HTTP has no empty byte range; the engine answers one with no bytes.
    if (range?.end !== undefined && range.end <= range.start) {
      return this.#emptyRead(workspace, path, version, range);
    }
    const spec = (wanted: S.ByteRange | undefined): RequestSpec => ({
      method: 'GET',
      path: this.file(workspace, path),
      query: { version },
      headers: { ...this.headers(session), Range: rangeHeader(wanted) },
    });
    let wanted = range;
    const res = await this.http.send(spec(wanted)).catch((error: unknown) => {
      // An empty file has no byte 0: HTTP refuses `bytes=0-N` where the engine reads nothing.
      if (range?.start === 0 && isEmptyFileRange(error)) {
        wanted = undefined;
        return this.http.send(spec(wanted));
      }
      throw error;
    });
    const info = infoFromHeaders(path, res.headers);
    return {
      info,
      body: Readable.from(this.http.pieces(res), { objectMode: false }),
      range: servedRange(res.headers, res.status, wanted, info.size),
    };
  }

  async readText(
    workspace: string,
    path: string,
    options: S.ReadTextOptions = {},
  ): Promise<S.TextSlice> {
    const parsed = parseOptions(S.ReadTextOptionsSchema, options);
    checkTextOptions(parsed);
    const { info, body } = await this.readFile(workspace, path, {
      session: parsed.session,
      version: parsed.version,
    });
    return sliceText(info, body, parsed);
  }

  async stat(
    workspace: string,
    path: string,
    options: { version?: number } = {},
  ): Promise<S.FileInfo> {
    const { version } = parseOptions(S.ReadOptionsSchema, options);
    const res = await this.http.send({
      method: 'HEAD',
      path: this.file(workspace, path),
      query: { version },
      headers: this.headers(),
    });
    return infoFromHeaders(path, res.headers);
  }

  // The tree

  async list(workspace: string, options: S.ListOptions = {}): Promise<S.ListPage> {
    return this.http.json(S.ListPageSchema, {
      method: 'GET',
      path: `${this.ws(workspace)}/files`,
      headers: this.headers(options.session),
      query: {
        path: options.path,
        recursive: options.recursive,
        glob: options.glob,
        cursor: options.cursor,
        limit: options.limit,
      },
    });
  }

  async mkdir(
    workspace: string,
    path: string,
    options: S.MutationOptions = {},
  ): Promise<S.FileInfo> {
    return this.treeCall(S.FileInfoSchema, workspace, 'mkdir', { path }, options);
  }

  async remove(
    workspace: string,
    path: string,
    options: S.RemoveOptions = {},
  ): Promise<S.RemoveResult> {
    const { session, recursive, ...conditions } = parseOptions(S.RemoveOptionsSchema, options);
    return this.http.json(S.RemoveResultSchema, {
      method: 'DELETE',
      path: this.file(workspace, path),
      query: { recursive },
      headers: { ...this.headers(session), ...conditionHeaders(conditions) },
    });
  }

  async move(
    workspace: string,
    from: string,
    to: string,
    options: S.MoveOptions = {},
  ): Promise<S.FileInfo> {
    return this.treeCall(S.FileInfoSchema, workspace, 'move', { from, to }, options);
  }

  async copy(
    workspace: string,
    from: string,
    to: string,
    options: S.CopyOptions = {},
  ): Promise<S.FileInfo> {
    return this.treeCall(S.FileInfoSchema, workspace, 'copy', { from, to }, options);
  }

  async editFile(
    workspace: string,
    path: string,
    edits: readonly S.Edit[],
    options: S.EditOptions = {},
  ): Promise<S.EditResult> {
    return this.treeCall(S.EditResultSchema, workspace, 'edit', { path, edits }, options);
  }

  // History and changes

  async listVersions(
    workspace: string,
    path: string,
    options: S.PageOptions = {},
  ): Promise<S.Page<S.Version>> {
    return this.http.json(VersionPage, {
      method: 'GET',
      path: `${this.ws(workspace)}/versions/${urlPath(path)}`,
      headers: this.headers(),
      query: { cursor: options.cursor, limit: options.limit },
    });
  }

  async diff(workspace: string, path: string, options: S.DiffOptions = {}): Promise<S.DiffResult> {
    return this.http.json(S.DiffResultSchema, {
      method: 'GET',
      path: `${this.ws(workspace)}/diff`,
      headers: this.headers(options.session),
      query: { path, from: options.from, to: options.to, context: options.context },
    });
  }

  async restore(
    workspace: string,
    path: string,
    seq: number,
    options: S.WriteOptions = {},
  ): Promise<S.FileInfo> {
    return this.treeCall(S.FileInfoSchema, workspace, 'restore', { path, seq }, options);
  }

  /** `GET …/changes?after=&limit=&path=&wait=`: the request stays open while the server waits. */
  async listChanges(workspace: string, options: S.ListChangesOptions = {}): Promise<S.ChangesPage> {
    return this.http.json(S.ChangesPageSchema, {
      method: 'GET',
      path: `${this.ws(workspace)}/changes`,
      headers: this.headers(options.session),
      query: {
        after: options.after,
        limit: options.limit,
        path: options.path,
        wait: options.waitSeconds,
      },
    });
  }

  async #emptyRead(
    workspace: string,
    path: string,
    version: number | undefined,
    range: S.ByteRange,
  ): Promise<FileStream> {
    const info = await this.stat(workspace, path, { version });
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
}
