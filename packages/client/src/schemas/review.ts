/**
 * Schemas of review comments (threads anchored to lines of a file version) and share links
 * (read-only links for people without an account); docs/api.md, "Comments" and "Share links".
 */
import { z } from 'zod';
import { CursorSchema, LimitSchema, SeqSchema, SessionSchema } from './files.js';

const LineSchema = z.number().int().positive();

export const CommentBodySchema = z.string().min(1).max(10_000);

export const AddCommentSchema = z.object({
  path: z.string().optional(),
  version: SeqSchema.optional().describe('the version the lines are of; default the head'),
  startLine: LineSchema.optional(),
  endLine: LineSchema.optional(),
  parentId: z.string().max(100).optional(),
  body: CommentBodySchema,
  session: SessionSchema.optional(),
});
export type AddComment = z.infer<typeof AddCommentSchema>;

export const CommentStatusSchema = z.enum(['open', 'resolved', 'all']);

export const ListCommentsOptionsSchema = z.object({
  path: z.string().optional(),
  status: CommentStatusSchema.optional(),
  cursor: CursorSchema.optional(),
  limit: z.number().int().min(1).max(200).optional().describe('threads per page (default 50)'),
});
export type ListCommentsOptions = z.infer<typeof ListCommentsOptionsSchema>;

export const ResolveCommentOptionsSchema = z.object({
  resolved: z.boolean().optional().describe('false reopens; default true'),
  session: SessionSchema.optional(),
});
export type ResolveCommentOptions = z.infer<typeof ResolveCommentOptionsSchema>;

export const LineRangeSchema = z.object({
  version: SeqSchema,
  startLine: z.number().int(),
  endLine: z.number().int(),
});
export type LineRange = z.infer<typeof LineRangeSchema>;

export const CommentSchema = z.object({
  id: z.string(),
  threadId: z.string(),
  parentId: z.string().nullable(),
  path: z.string(),
  body: z.string(),
  author: z.string(),
  session: z.string().nullable(),
  createdAt: z.string(),
});
export type Comment = z.infer<typeof CommentSchema>;

export const CommentThreadSchema = CommentSchema.extend({
  anchor: LineRangeSchema.describe('the lines commented on, in the version they were read in'),
  current: LineRangeSchema.nullable().describe(
    'the same lines in the head version; null when outdated',
  ),
  outdated: z
    .boolean()
    .describe('the lines were changed or removed since (or the file was deleted, or is redacted)'),
  excerpt: z
    .string()
    .nullable()
    .describe('the anchored lines as they were (bounded); null when that content is redacted'),
  resolved: z.boolean(),
  resolvedBy: z.string().nullable(),
  resolvedAt: z.string().nullable(),
  replies: z.array(CommentSchema).describe('oldest first, at most 100'),
  replyCount: z.number().int(),
});
export type CommentThread = z.infer<typeof CommentThreadSchema>;

export const CreateShareLinkSchema = z.object({
  path: z.string().describe('a file, or a folder shared with everything under it'),
  expiresIn: z
    .number()
    .int()
    .min(60)
    .optional()
    .describe('seconds until the link stops working (default 7 days, at most 90 days)'),
  password: z.string().min(8).max(200).optional().describe('required to open the link'),
  maxDownloads: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe('file downloads allowed through the link; default unlimited'),
  session: SessionSchema.optional(),
});
export type CreateShareLink = z.infer<typeof CreateShareLinkSchema>;

export const ShareLinkSchema = z.object({
  id: z.string().describe('the actor of every view in the audit log is share:<id>'),
  workspace: z.string(),
  path: z.string(),
  kind: z.enum(['file', 'directory']),
  expiresAt: z.string(),
  hasPassword: z.boolean(),
  maxDownloads: z.number().int().nullable(),
  downloads: z.number().int(),
  createdBy: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
  revokedBy: z.string().nullable(),
  state: z.enum(['active', 'expired', 'revoked', 'used_up']),
});
export type ShareLink = z.infer<typeof ShareLinkSchema>;

export const CreatedShareLinkSchema = ShareLinkSchema.extend({
  token: z.string().describe('shown this once; only its hash is stored'),
  url: z.string().describe('GET it with no API key: /s/<token>'),
});
export type CreatedShareLink = z.infer<typeof CreatedShareLinkSchema>;

/** What a share link's public view says about the link (no creator, no workspace internals). */
export const SharedFolderSchema = z.object({
  path: z.string().describe('below the shared folder ("/" is the folder itself)'),
  items: z.array(
    z.object({
      path: z.string(),
      type: z.enum(['file', 'directory']),
      size: z.number().int(),
      contentType: z.string().nullable(),
      modifiedAt: z.string(),
    }),
  ),
  nextCursor: z.string().nullable(),
  expiresAt: z.string(),
});
export type SharedFolder = z.infer<typeof SharedFolderSchema>;

export const SharePageOptionsSchema = z.object({
  cursor: CursorSchema.optional(),
  limit: LimitSchema.optional(),
});
