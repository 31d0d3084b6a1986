/**
 * The body of `POST …/batch`, the one hand-written JSON route (the operation table's bodies are
 * derived from their declarations). Unknown fields are refused (INVALID_INPUT naming them) so a
 * typo never silently does less.
 */
import {
  DownloadFilesSchema,
  MutationOptionsSchema,
  SessionSchema,
  WriteOptionsSchema,
} from '@satchel/core/schemas';
import { z } from 'zod';

/** Most files one `POST …/batch` may write (the JSON body limit bounds their size). */
export const MAX_BATCH_FILES = 1000;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** One file of a batch: `content` is text, or bytes as standard base64 (`encoding: "base64"`). */
export const BatchFileBody = z
  .object({
    path: z.string(),
    content: z.string(),
    encoding: z.enum(['utf8', 'base64']).optional(),
    ifMatch: WriteOptionsSchema.shape.ifMatch,
    ifNoneMatch: WriteOptionsSchema.shape.ifNoneMatch,
  })
  .strict()
  .superRefine((file, ctx) => {
    if (file.encoding === 'base64' && !BASE64.test(file.content)) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'not valid base64' });
    }
  });

export const BatchBody = MutationOptionsSchema.extend({
  files: z.array(BatchFileBody).min(1).max(MAX_BATCH_FILES),
}).strict();

/** The body of `POST …/batch/download`: the files to read (routes/batch.ts). */
export const DownloadFilesBody = z
  .object({ files: DownloadFilesSchema, session: SessionSchema.optional() })
  .strict();
