/**
 * Schemas of batch transfer (operations/batch.ts): many files per call in both directions, and
 * the "what do you already have" question asked by content hash before an upload.
 */
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { FileInfoSchema, MutationOptionsSchema, SeqSchema } from './files.js';
import { ContentHashSchema } from './sync.js';

/** Hashes one `haveContent` call may ask about. */
export const HAVE_MAX_HASHES = 1000;
/** Files one `downloadFiles` call may name. */
export const DOWNLOAD_MAX_FILES = 1000;

export const HaveContentSchema = z.object({
  have: z
    .array(ContentHashSchema)
    .describe(
      'the hashes asked about whose content a workspace you may read holds: upload those by hash',
    ),
});
export type HaveContent = z.infer<typeof HaveContentSchema>;

export const UploadOptionsSchema = MutationOptionsSchema.extend({
  message: z.string().max(1000).optional().describe('stored on every version the batch writes'),
});
export type UploadOptions = z.infer<typeof UploadOptionsSchema>;

/** A file's failure inside a batch: the code and message the single call would have thrown. */
export const BatchErrorSchema = z.object({
  code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
  message: z.string(),
  data: z.record(z.string(), z.unknown()).optional(),
});
export type BatchError = z.infer<typeof BatchErrorSchema>;

export const UploadItemSchema = z.union([
  z.object({
    path: z.string(),
    ok: z.literal(true),
    info: FileInfoSchema,
    deduplicated: z.boolean().describe('written by hash: no content travelled'),
  }),
  z.object({ path: z.string(), ok: z.literal(false), error: BatchErrorSchema }),
]);
export type UploadItem = z.infer<typeof UploadItemSchema>;

export const UploadResultSchema = z.object({
  items: z.array(UploadItemSchema).describe('one per file sent, in the order sent'),
});
export type UploadResult = z.infer<typeof UploadResultSchema>;

export const DownloadRequestSchema = z.object({
  path: z.string(),
  version: SeqSchema.optional().describe('this version (seq) instead of the head'),
});
export type DownloadRequest = z.infer<typeof DownloadRequestSchema>;

export const DownloadFilesSchema = z.array(DownloadRequestSchema).min(1).max(DOWNLOAD_MAX_FILES);
