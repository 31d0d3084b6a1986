/**
 * Large files: resumable upload sessions (create, resume from the server's offset, complete as
 * one new version) and signed transfer URLs that move bytes without an API key. The part upload
 * and the URLs' file routes are written by hand: their bodies are bytes or they share the file
 * route (the `custom` reasons).
 */
import { z } from 'zod';
import {
  CreateUploadSchema,
  DownloadUrlOptionsSchema,
  FileInfoSchema,
  ListUploadsSchema,
  TransferUrlSchema,
  UploadSchema,
  UploadUrlOptionsSchema,
} from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';
import type { Content } from './satchel.js';

const PATH_ARG = ['path', z.string()] as const;
const UPLOAD_ARG = ['id', z.string()] as const;

export const createUpload = operation({
  name: 'createUpload',
  summary:
    'Start a resumable upload of a file of a declared size; nothing is visible until complete',
  tag: 'uploads',
  args: [WORKSPACE_ARG, PATH_ARG],
  options: CreateUploadSchema,
  optionsRequired: true,
  result: UploadSchema,
  access: { workspace: 'file.write', paths: ([, path]) => [path] },
  auditPath: ([, path]) => path,
  mutates: false,
  http: { method: 'POST', path: '/workspaces/:ws/uploads', status: 201 },
});

export const getUpload = operation({
  name: 'getUpload',
  summary: 'One of your uploads: how many bytes the server has (resume from `offset`)',
  tag: 'uploads',
  args: [WORKSPACE_ARG, UPLOAD_ARG],
  result: UploadSchema,
  access: { workspace: 'file.write' },
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws/uploads/:id' },
});

export const listUploads = operation({
  name: 'listUploads',
  summary: 'Your unfinished uploads in a workspace, optionally for one path, newest first',
  tag: 'uploads',
  args: [WORKSPACE_ARG],
  options: ListUploadsSchema,
  result: z.array(UploadSchema),
  access: { workspace: 'file.write' },
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws/uploads', query: { path: 'string' }, list: true },
});

export const appendUpload = operation({
  name: 'appendUpload',
  summary: 'Add the bytes that start at `offset` (CONFLICT with the current offset when not)',
  tag: 'uploads',
  args: [WORKSPACE_ARG, UPLOAD_ARG, ['offset', z.number()], ['content', z.custom<Content>()]],
  result: UploadSchema,
  access: { workspace: 'file.write' },
  mutates: false,
  http: { custom: 'PATCH with Upload-Offset and the bytes as the body (routes/uploads.ts)' },
});

export const completeUpload = operation({
  name: 'completeUpload',
  summary: 'Write the uploaded bytes as one new version of the file, verified; ends the session',
  tag: 'uploads',
  args: [WORKSPACE_ARG, UPLOAD_ARG],
  result: FileInfoSchema,
  access: { workspace: 'file.write' },
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/uploads/:id/complete' },
});

export const cancelUpload = operation({
  name: 'cancelUpload',
  summary: 'Drop an unfinished upload and its bytes',
  tag: 'uploads',
  args: [WORKSPACE_ARG, UPLOAD_ARG],
  access: { workspace: 'file.write' },
  mutates: false,
  http: { method: 'DELETE', path: '/workspaces/:ws/uploads/:id', status: 204 },
});

export const createUploadUrl = operation({
  name: 'createUploadUrl',
  summary: 'A short-lived, single-use URL that writes this path without an API key (curl -T)',
  tag: 'uploads',
  args: [WORKSPACE_ARG, PATH_ARG],
  options: UploadUrlOptionsSchema,
  result: TransferUrlSchema,
  access: { workspace: 'file.write', paths: ([, path]) => [path] },
  auditPath: ([, path]) => path,
  // Signing changes nothing yet, but the URL writes: a read-only frontend must not offer it.
  mutates: true,
  http: { custom: 'POST …/files/<path>?upload-url shares the file route (routes/files.ts)' },
});

export const createDownloadUrl = operation({
  name: 'createDownloadUrl',
  summary: 'A short-lived URL that reads this file without an API key (curl -o)',
  tag: 'uploads',
  args: [WORKSPACE_ARG, PATH_ARG],
  options: DownloadUrlOptionsSchema,
  result: TransferUrlSchema,
  access: { workspace: 'file.read' },
  auditPath: ([, path]) => path,
  mutates: false,
  http: { custom: 'POST …/files/<path>?download-url shares the file route (routes/files.ts)' },
});
