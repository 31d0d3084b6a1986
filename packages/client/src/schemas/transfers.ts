/**
 * Resumable uploads and signed transfer URLs (docs/api.md, "Large files"): the session a client
 * resumes from the server's offset, and the short-lived URLs that move bytes without an API key.
 */
import { z } from 'zod';
import { WriteOptionsSchema } from './files.js';
import { ContentHashSchema } from './sync.js';

const SizeSchema = z.number().int().nonnegative().describe('size of the whole file in bytes');

export const CreateUploadSchema = WriteOptionsSchema.extend({
  size: SizeSchema,
  sha256: ContentHashSchema.optional().describe(
    'SHA-256 of the whole file; completion refuses other content (INVALID_INPUT, hash_mismatch)',
  ),
});
export type CreateUpload = z.infer<typeof CreateUploadSchema>;

export const UploadSchema = z.object({
  id: z.string(),
  path: z.string(),
  size: z.number().int(),
  sha256: z.string().nullable(),
  offset: z.number().int().describe('bytes received so far: the next part starts here'),
  createdAt: z.string(),
  expiresAt: z.string().describe('the session and its parts are dropped after this'),
});
export type Upload = z.infer<typeof UploadSchema>;

export const ListUploadsSchema = z.object({ path: z.string().optional() });

const ExpiresInSchema = z
  .number()
  .int()
  .positive()
  .optional()
  .describe(
    'seconds the URL stays valid (default 900; at most the server maximum, 86400 unless set)',
  );

export const UploadUrlOptionsSchema = z.object({
  size: SizeSchema.optional().describe('the upload must be exactly this many bytes'),
  sha256: ContentHashSchema.optional().describe('the upload must hash to this'),
  expiresIn: ExpiresInSchema,
  ifMatch: WriteOptionsSchema.shape.ifMatch,
  ifNoneMatch: WriteOptionsSchema.shape.ifNoneMatch,
  lockToken: WriteOptionsSchema.shape.lockToken,
});
export type UploadUrlOptions = z.infer<typeof UploadUrlOptionsSchema>;

export const DownloadUrlOptionsSchema = z.object({
  version: z.number().int().nonnegative().optional().describe('a past version (default: head)'),
  expiresIn: ExpiresInSchema,
  reusable: z
    .boolean()
    .optional()
    .describe('usable any number of times until it expires (default: once)'),
});
export type DownloadUrlOptions = z.infer<typeof DownloadUrlOptionsSchema>;

export const TransferUrlSchema = z.object({
  url: z.string().describe('use without an API key: curl -T FILE URL, or curl -o FILE URL'),
  expiresAt: z.string(),
});
export type TransferUrl = z.infer<typeof TransferUrlSchema>;
