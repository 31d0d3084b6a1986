/**
 * Operations on files and their history. Those whose bodies are bytes (write, append, read, stat,
 * delete with its conditional headers) or events (the change feed) have routes and client
 * methods written by hand: the `custom` reason says why.
 */
import { z } from 'zod';
import {
  AppendOptionsSchema,
  AtSchema,
  ChangesPageSchema,
  CopyOptionsSchema,
  DiffOptionsSchema,
  DiffResultSchema,
  EditOptionsSchema,
  EditResultSchema,
  EditSchema,
  FileInfoSchema,
  ListChangesOptionsSchema,
  ListOptionsSchema,
  ListPageSchema,
  MoveOptionsSchema,
  MutationOptionsSchema,
  PageOptionsSchema,
  pageSchema,
  ReadOptionsSchema,
  ReadTextOptionsSchema,
  RemoveOptionsSchema,
  RemoveResultSchema,
  SeqSchema,
  TextSliceSchema,
  VersionSchema,
  WriteFileOptionsSchema,
  WriteOptionsSchema,
} from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';
import type { BatchFile, Content, FileStream } from './satchel.js';

const PATH_ARG = ['path', z.string()] as const;

const BYTES = 'the body is the file content as a byte stream (routes/files.ts)';

export const writeFile = operation({
  name: 'writeFile',
  summary: 'Write a new version of a file, creating parent directories',
  tag: 'files',
  args: [WORKSPACE_ARG, PATH_ARG, ['content', z.custom<Content>()]],
  options: WriteFileOptionsSchema,
  result: FileInfoSchema,
  access: { workspace: 'file.write', paths: ([, path]) => [path] },
  auditPath: ([, path]) => path,
  mutates: true,
  http: { custom: BYTES },
});

export const writeFileByHash = operation({
  name: 'writeFileByHash',
  summary: 'Write a version holding content the workspace already has, named by its SHA-256',
  tag: 'files',
  args: [WORKSPACE_ARG, PATH_ARG, ['hash', z.string()]],
  options: WriteOptionsSchema,
  result: FileInfoSchema,
  access: { workspace: 'file.write', paths: ([, path]) => [path] },
  auditPath: ([, path]) => path,
  mutates: true,
  http: { custom: 'a PUT of the file with Satchel-Content-Hash and no body (routes/files.ts)' },
});

export const writeFiles = operation({
  name: 'writeFiles',
  summary: 'Write many small files in one transaction: all of them or none',
  tag: 'files',
  args: [WORKSPACE_ARG, ['files', z.custom<readonly BatchFile[]>()]],
  options: MutationOptionsSchema,
  result: z.array(FileInfoSchema),
  access: {
    workspace: 'file.write',
    paths: ([, files]) =>
      Array.isArray(files) ? files.map((f) => (f as { path?: unknown } | null)?.path) : [],
  },
  mutates: true,
  http: { custom: 'bytes travel as base64 in the JSON body (routes/tree.ts)' },
});

export const appendFile = operation({
  name: 'appendFile',
  summary: 'Append to a file, creating it; appending nothing changes nothing',
  tag: 'files',
  args: [WORKSPACE_ARG, PATH_ARG, ['content', z.custom<Content>()]],
  options: AppendOptionsSchema,
  result: FileInfoSchema,
  access: { workspace: 'file.write', paths: ([, path]) => [path] },
  auditPath: ([, path]) => path,
  mutates: true,
  http: { custom: BYTES },
});

export const readFile = operation({
  name: 'readFile',
  summary: 'Read a file (or a byte range of it) as a verified stream',
  tag: 'files',
  args: [WORKSPACE_ARG, PATH_ARG],
  options: ReadOptionsSchema,
  result: z.custom<FileStream>(),
  access: { workspace: 'file.read' },
  auditPath: ([, path]) => path,
  mutates: false,
  http: { custom: BYTES },
});

export const readText = operation({
  name: 'readText',
  summary: 'Read text by lines (head, tail, offset/limit), bounded by maxBytes',
  tag: 'files',
  args: [WORKSPACE_ARG, PATH_ARG],
  options: ReadTextOptionsSchema,
  result: TextSliceSchema,
  access: { workspace: 'file.read' },
  auditPath: ([, path]) => path,
  mutates: false,
  http: { custom: 'the client reads the file and slices it by the engine’s own rules' },
});

export const stat = operation({
  name: 'stat',
  summary: 'A file’s or directory’s metadata',
  tag: 'files',
  args: [WORKSPACE_ARG, PATH_ARG],
  options: z.object({ version: SeqSchema.optional(), at: AtSchema.optional() }),
  result: FileInfoSchema,
  access: { workspace: 'file.read' },
  auditPath: ([, path]) => path,
  mutates: false,
  http: { custom: 'HEAD of the file: the metadata travels as headers (routes/files.ts)' },
});

export const list = operation({
  name: 'list',
  summary: 'List a directory, a subtree or a glob, in path order, paginated, with the total',
  tag: 'files',
  args: [WORKSPACE_ARG],
  options: ListOptionsSchema,
  result: ListPageSchema,
  access: { workspace: 'file.read' },
  auditPath: ([, options]) => options?.path ?? '/',
  mutates: false,
  http: {
    method: 'GET',
    path: '/workspaces/:ws/files',
    query: {
      path: 'string',
      recursive: 'boolean',
      glob: 'string',
      at: 'string',
      cursor: 'string',
      limit: 'integer',
    },
  },
});

export const mkdir = operation({
  name: 'mkdir',
  summary: 'Create a directory and its parents',
  tag: 'files',
  args: [WORKSPACE_ARG, PATH_ARG],
  options: MutationOptionsSchema,
  result: FileInfoSchema,
  access: { workspace: 'file.write', paths: ([, path]) => [path] },
  auditPath: ([, path]) => path,
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/mkdir', validators: (info) => info },
});

export const remove = operation({
  name: 'remove',
  summary: 'Delete a file (a tombstone version) or a directory (recursive when not empty)',
  tag: 'files',
  args: [WORKSPACE_ARG, PATH_ARG],
  options: RemoveOptionsSchema,
  result: RemoveResultSchema,
  access: { workspace: 'file.write', paths: ([, path]) => [path] },
  auditPath: ([, path]) => path,
  mutates: true,
  http: { custom: 'DELETE of the file, with If-Match as for writes (routes/files.ts)' },
});

export const move = operation({
  name: 'move',
  summary: 'Move a file or directory; history follows',
  tag: 'files',
  args: [WORKSPACE_ARG, ['from', z.string()], ['to', z.string()]],
  options: MoveOptionsSchema,
  result: FileInfoSchema,
  access: { workspace: 'file.write', paths: ([, from, to]) => [from, to] },
  auditPath: ([, from]) => from,
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/move', validators: (info) => info },
});

export const copy = operation({
  name: 'copy',
  summary: 'Copy a file or directory without copying content (same hash)',
  tag: 'files',
  args: [WORKSPACE_ARG, ['from', z.string()], ['to', z.string()]],
  options: CopyOptionsSchema,
  result: FileInfoSchema,
  access: { workspace: 'file.write', paths: ([, , to]) => [to] },
  auditPath: ([, , to]) => to,
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/copy', validators: (info) => info },
});

export const editFile = operation({
  name: 'editFile',
  summary: 'Apply exact text replacements in order; returns the diff',
  tag: 'files',
  args: [WORKSPACE_ARG, PATH_ARG, ['edits', z.array(EditSchema).min(1).max(1000)]],
  options: EditOptionsSchema,
  result: EditResultSchema,
  access: { workspace: 'file.write', paths: ([, path]) => [path] },
  auditPath: ([, path]) => path,
  mutates: true,
  // A dry run changed nothing: its info is the unchanged head, still a valid validator.
  http: { method: 'POST', path: '/workspaces/:ws/edit', validators: (r) => r.info },
});

export const listVersions = operation({
  name: 'listVersions',
  summary: 'Versions of a path, newest first, following the file back across moves',
  tag: 'history',
  args: [WORKSPACE_ARG, PATH_ARG],
  options: PageOptionsSchema,
  result: pageSchema(VersionSchema),
  access: { workspace: 'file.read' },
  auditPath: ([, path]) => path,
  mutates: false,
  http: {
    method: 'GET',
    path: '/workspaces/:ws/versions/*',
    query: { cursor: 'string', limit: 'integer' },
  },
});

export const diff = operation({
  name: 'diff',
  summary: 'Unified diff between two versions of a file (default: the last change)',
  tag: 'history',
  args: [WORKSPACE_ARG, PATH_ARG],
  options: DiffOptionsSchema,
  result: DiffResultSchema,
  access: { workspace: 'file.read' },
  auditPath: ([, path]) => path,
  mutates: false,
  http: { custom: 'answers text/x-diff to clients that ask for it (routes/history.ts)' },
});

export const restore = operation({
  name: 'restore',
  summary: 'Make the content of an old version the head again, as a new version',
  tag: 'history',
  args: [WORKSPACE_ARG, PATH_ARG, ['seq', SeqSchema]],
  options: WriteOptionsSchema,
  result: FileInfoSchema,
  access: { workspace: 'file.write', paths: ([, path]) => [path] },
  auditPath: ([, path]) => path,
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/restore', validators: (info) => info },
});

export const listChanges = operation({
  name: 'listChanges',
  summary: "The workspace's changes after a seq, oldest first; long-polls with waitSeconds",
  tag: 'history',
  args: [WORKSPACE_ARG],
  options: ListChangesOptionsSchema,
  result: ChangesPageSchema,
  access: { workspace: 'file.read' },
  auditPath: ([, options]) => options?.path ?? null,
  mutates: false,
  http: { custom: 'a long poll, or a stream of server-sent events (routes/changes.ts)' },
});
