/** The route table, part one: files, tree operations, history, locks and the change feed. */
import {
  CursorSchema,
  LimitSchema,
  ListChangesOptionsSchema,
  LockTokenSchema,
  SeqSchema,
  SessionSchema,
} from '@satchel/core/schemas';
import { z } from 'zod';
import type { OperationSpec, ParamSpec, ResponseSpec } from './spec.js';

export const PAGE_PARAMS: readonly ParamSpec[] = [
  {
    name: 'cursor',
    in: 'query',
    schema: CursorSchema,
    description: '`nextCursor` of the page before',
  },
  { name: 'limit', in: 'query', schema: LimitSchema, description: 'page size (default 100)' },
];

export const SESSION_HEADER: ParamSpec = {
  name: 'Satchel-Session',
  in: 'header',
  schema: SessionSchema,
  description: 'label of the agent run, stored on versions and audit entries (percent-encoded)',
};

export const LOCK_TOKEN_HEADER: ParamSpec = {
  name: 'Satchel-Lock-Token',
  in: 'header',
  schema: LockTokenSchema,
  description: 'fencing token of a lock you hold on the path',
};

const MUTATION_HEADERS = [SESSION_HEADER, LOCK_TOKEN_HEADER];

const header = (name: string, description: string): ParamSpec => ({
  name,
  in: 'header',
  schema: z.string(),
  description,
});

const VERSION: ParamSpec = {
  name: 'version',
  in: 'query',
  schema: SeqSchema,
  description: 'read this version (seq) instead of the head; cacheable for good',
};

const FILE_INFO: ResponseSpec = {
  description: 'the new head of the path',
  content: [{ json: 'FileInfo' }],
  headers: ['ETag'],
};

const FILES = '/v1/workspaces/:ws/files/*';

export const FILE_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'GET',
    path: FILES,
    tag: 'files',
    summary: 'Read a file',
    description:
      'Streams the content. Conditional (If-None-Match, If-Modified-Since), ranged (Range, ' +
      'If-Range) and versioned (?version=N). Satchel-* headers carry the file info.',
    params: [
      VERSION,
      SESSION_HEADER,
      header('If-None-Match', 'ETag(s) you have: 304 if one is current'),
      header('Range', 'one byte range, e.g. bytes=0-1023'),
    ],
    responses: {
      200: {
        description: 'the content',
        content: [{ media: 'application/octet-stream', format: 'binary' }],
        headers: ['ETag', 'Last-Modified', 'Repr-Digest'],
      },
      206: {
        description: 'the requested range',
        content: [{ media: 'application/octet-stream', format: 'binary' }],
      },
      304: { description: 'not modified' },
    },
    errors: [400, 403, 404, 412, 416],
  },
  {
    method: 'HEAD',
    path: FILES,
    tag: 'files',
    summary: 'Stat a file as headers',
    params: [VERSION, header('If-None-Match', 'ETag(s) you have: 304 if one is current')],
    responses: {
      200: { description: 'the file info as headers', headers: ['ETag', 'Content-Length'] },
      304: { description: 'not modified' },
    },
    errors: [400, 403, 404],
  },
  {
    method: 'PUT',
    path: FILES,
    tag: 'files',
    summary: 'Write a file',
    description: 'The raw body is streamed into a new version. Conditional with If-Match (seq).',
    params: [
      { name: 'message', in: 'query', schema: z.string(), description: 'note on the version' },
      header('If-Match', 'write only if the head is this ETag'),
      header('If-None-Match', '`*`: create only'),
      header(
        'Satchel-Content-Hash',
        'SHA-256 (hex) of content this workspace already holds: write it without sending it ' +
          '(empty body); 404 `content_unknown` when it holds no such content',
      ),
      ...MUTATION_HEADERS,
    ],
    body: { raw: 'application/octet-stream' },
    responses: { 200: FILE_INFO, 201: { ...FILE_INFO, description: 'created (If-None-Match: *)' } },
    errors: [400, 403, 404, 409, 412, 413, 423],
  },
  {
    method: 'POST',
    path: FILES,
    tag: 'files',
    summary: 'Append to a file (?append), or sign a transfer URL (?upload-url, ?download-url)',
    description:
      '`?append`: the raw body is appended. `?upload-url` / `?download-url`: the optional JSON ' +
      'body holds the options (size, sha256, expiresIn, …) and the answer is 201 `{url, expiresAt}`.',
    params: [
      { name: 'append', in: 'query', schema: z.string(), description: 'append the body' },
      { name: 'upload-url', in: 'query', schema: z.string(), description: 'sign an upload URL' },
      { name: 'download-url', in: 'query', schema: z.string(), description: 'sign a download URL' },
      header('If-Match', 'append only if the head is this ETag'),
      ...MUTATION_HEADERS,
    ],
    body: { raw: 'application/octet-stream' },
    responses: {
      200: FILE_INFO,
      201: { description: 'a signed transfer URL', content: [{ json: 'TransferUrl' }] },
    },
    errors: [400, 403, 404, 409, 412, 413, 423],
  },
  {
    method: 'DELETE',
    path: FILES,
    tag: 'files',
    summary: 'Delete a file or directory',
    params: [
      { name: 'recursive', in: 'query', schema: z.boolean(), description: 'delete a subtree' },
      header('If-Match', 'delete only if the head is this ETag'),
      ...MUTATION_HEADERS,
    ],
    responses: { 200: { description: 'what was deleted', content: [{ json: 'RemoveResult' }] } },
    errors: [400, 403, 404, 409, 412, 423],
  },
  {
    method: 'POST',
    path: '/v1/workspaces/:ws/batch',
    tag: 'files',
    summary: 'Write many files at once (all or none)',
    params: MUTATION_HEADERS,
    body: { json: 'BatchBody' },
    responses: { 200: { description: 'the new heads', content: [{ json: 'FileInfoPage' }] } },
    errors: [400, 403, 404, 409, 412, 413, 423],
  },
  {
    method: 'POST',
    path: '/v1/workspaces/:ws/batch/upload',
    tag: 'files',
    summary: 'Write many files from one tar stream, each committed on its own',
    description:
      'The body is a POSIX tar: one regular-file entry per file, named by its path without the ' +
      'leading slash; pax records SATCHEL.sha256 (checked), SATCHEL.if-match, ' +
      'SATCHEL.if-none-match ("*"), and SATCHEL.by-hash=1 with no bytes for content a workspace ' +
      'you may read holds (ask POST …/batch/have). The answer is one JSON line per file, in the ' +
      'order sent ({path, ok: true, info, deduplicated} or {path, ok: false, error: {code, ' +
      'message, data}}), then {"end": true}. A file cut short is never written.',
    params: [
      SESSION_HEADER,
      LOCK_TOKEN_HEADER,
      { name: 'message', in: 'query', schema: z.string(), description: 'stored on every version' },
    ],
    body: { raw: 'application/x-tar' },
    responses: {
      200: {
        description: 'one JSON line per file, then {"end": true}',
        content: [{ media: 'application/x-ndjson', format: 'text' }],
      },
    },
    errors: [400, 403, 404],
  },
  {
    method: 'POST',
    path: '/v1/workspaces/:ws/batch/download',
    tag: 'files',
    summary: 'Read many files as one tar stream',
    description:
      'The body is {files: [{path, version?}]} (1 to 1000). The answer is a POSIX tar in the ' +
      'order asked: each file an entry with its FileInfo as JSON in the pax record ' +
      'SATCHEL.info; a file that cannot be read is an empty entry whose SATCHEL.error record ' +
      'holds {code, message, data}.',
    params: [SESSION_HEADER],
    body: { json: 'DownloadFilesBody' },
    responses: {
      200: {
        description: 'the files',
        content: [{ media: 'application/x-tar', format: 'binary' }],
      },
    },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/:ws/diff',
    tag: 'history',
    summary: 'Unified diff between two versions',
    params: [
      { name: 'path', in: 'query', schema: z.string(), description: 'the file', required: true },
      { name: 'from', in: 'query', schema: SeqSchema, description: 'older version' },
      { name: 'to', in: 'query', schema: SeqSchema, description: 'newer version (head)' },
      { name: 'context', in: 'query', schema: z.number().int(), description: 'context lines' },
    ],
    responses: {
      200: {
        description: 'JSON, or the bare diff with Accept: text/x-diff',
        content: [{ json: 'DiffResult' }, { media: 'text/x-diff', format: 'text' }],
      },
    },
    errors: [400, 403, 404],
  },
  {
    method: 'DELETE',
    path: '/v1/workspaces/:ws/locks/:id',
    tag: 'locks',
    summary: 'Release a lock (or break anyone’s with ?break=true, owners)',
    params: [
      { name: 'break', in: 'query', schema: z.boolean(), description: 'break it' },
      SESSION_HEADER,
    ],
    responses: {
      200: { description: 'the broken lock', content: [{ json: 'Lock' }] },
      204: { description: 'released' },
    },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/:ws/changes',
    tag: 'changes',
    summary: 'The change feed: a page, a long poll, or live Server-Sent Events',
    params: [
      { name: 'after', in: 'query', schema: SeqSchema, description: 'cursor: changes after seq' },
      { name: 'limit', in: 'query', schema: LimitSchema, description: 'page size' },
      { name: 'path', in: 'query', schema: z.string(), description: 'only under this path' },
      {
        name: 'wait',
        in: 'query',
        schema: ListChangesOptionsSchema.shape.waitSeconds,
        description: 'long poll: seconds to wait for a change',
      },
      header('Accept', 'text/event-stream for a live stream'),
      header('Last-Event-ID', 'resume a stream after this seq'),
    ],
    responses: {
      200: {
        description: 'a page of changes, or an SSE stream of them',
        content: [{ json: 'ChangesPage' }, { media: 'text/event-stream', format: 'text' }],
      },
    },
    errors: [400, 403, 404],
  },
];
