/**
 * Batch transfer (issue 19): many files per call both ways, and the question that keeps content
 * the server has from travelling again. The two transfers stream bytes, so their routes and
 * client methods are written by hand (routes/batch.ts, remote/batch-calls.ts).
 */
import { z } from 'zod';
import {
  DownloadFilesSchema,
  HAVE_MAX_HASHES,
  HaveContentSchema,
  MutationOptionsSchema,
  UploadOptionsSchema,
  UploadResultSchema,
} from '../schemas/index.js';
import { ContentHashSchema } from '../schemas/sync.js';
import { operation, WORKSPACE_ARG } from './operation.js';
import type { DownloadItem, UploadEntry } from './satchel.js';

export const haveContent = operation({
  name: 'haveContent',
  summary:
    'Which of these SHA-256 hashes name content a workspace you may read holds (upload those by hash)',
  tag: 'files',
  args: [WORKSPACE_ARG, ['hashes', z.array(ContentHashSchema).max(HAVE_MAX_HASHES)]],
  options: MutationOptionsSchema.pick({ session: true }),
  result: HaveContentSchema,
  access: { workspace: 'file.write' },
  mutates: false,
  http: { method: 'POST', path: '/workspaces/:ws/batch/have' },
});

export const uploadFiles = operation({
  name: 'uploadFiles',
  summary: 'Write many files from one stream, each committed on its own (group commit)',
  tag: 'files',
  args: [WORKSPACE_ARG, ['entries', z.custom<AsyncIterable<UploadEntry>>()]],
  options: UploadOptionsSchema,
  result: UploadResultSchema,
  // Each entry's path is checked against the key's path prefixes as it arrives (engine).
  access: { workspace: 'file.write' },
  mutates: true,
  http: { custom: 'a tar stream in, one JSON line per committed file out (routes/batch.ts)' },
});

export const downloadFiles = operation({
  name: 'downloadFiles',
  summary: 'Read many files (pinned versions or heads) as one stream',
  tag: 'files',
  args: [WORKSPACE_ARG, ['files', DownloadFilesSchema]],
  options: MutationOptionsSchema.pick({ session: true }),
  result: z.custom<AsyncIterable<DownloadItem>>(),
  access: { workspace: 'file.read' },
  mutates: false,
  http: { custom: 'a JSON list in, a tar stream out (routes/batch.ts)' },
});
