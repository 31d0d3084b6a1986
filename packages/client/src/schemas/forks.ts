/**
 * Schemas of fork and merge (docs/time-travel.md, "Fork and merge"): a new workspace made from
 * another's state at a seq, and the three-way merge of one into the other, previewed first.
 */
import { z } from 'zod';
import {
  AtSchema,
  CallOptionsSchema,
  EntryTypeSchema,
  LockTokenSchema,
  SeqSchema,
} from './files.js';
import { UndoStateSchema } from './undo.js';

export const ForkOptionsSchema = CallOptionsSchema.extend({
  at: AtSchema.optional().describe('the seq or snapshot to fork at (default: the head)'),
});
export type ForkOptions = z.infer<typeof ForkOptionsSchema>;

export const ForkSchema = z.object({
  name: z.string().describe('the new workspace, owned by the caller'),
  seq: SeqSchema.describe("the fork's head: the fork point (its seqs continue from there)"),
  createdAt: z.string().describe('ISO 8601'),
  source: z.string().describe('the workspace it was forked from'),
  at: SeqSchema.describe("the source's seq it was forked at"),
  files: z.number().int().nonnegative().describe('paths it starts with (files and directories)'),
});
export type Fork = z.infer<typeof ForkSchema>;

export const MergePreviewOptionsSchema = CallOptionsSchema.extend({
  limit: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .describe('most changes and conflicts listed (default 1000); the summary counts them all'),
});
export type MergePreviewOptions = z.infer<typeof MergePreviewOptionsSchema>;

export const MergeOptionsSchema = MergePreviewOptionsSchema.extend({
  ifHead: SeqSchema.describe(
    "the preview's head: refused (PRECONDITION_FAILED) if a path the merge touches changed after it",
  ),
  ifFromHead: SeqSchema.describe(
    "the preview's fromHead: refused (PRECONDITION_FAILED) if the merged workspace changed after it",
  ),
  lockToken: LockTokenSchema.optional(),
  message: z.string().max(1000).optional(),
});
export type MergeOptions = z.infer<typeof MergeOptionsSchema>;

export const MergeActionSchema = z
  .enum(['create', 'modify', 'delete'])
  .describe('what the merge does to the path in the target: theirs replaces an unchanged ours');
export type MergeAction = z.infer<typeof MergeActionSchema>;

export const MergeChangeSchema = z.object({
  path: z.string(),
  type: EntryTypeSchema.describe('what the path is after the merge (for delete: before it)'),
  action: MergeActionSchema,
  from: UndoStateSchema.describe("the target's head now (ours)"),
  to: UndoStateSchema.describe('what the merge writes (theirs); null for delete'),
});
export type MergeChange = z.infer<typeof MergeChangeSchema>;

export const MergeConflictSchema = z.object({
  path: z.string(),
  reason: z
    .enum(['both_changed', 'not_empty', 'parent_is_file', 'redacted'])
    .describe(
      'both_changed: each side changed it since the base; not_empty: a directory to remove still holds entries that stay; parent_is_file: a file sits where its directory would be; redacted: their content was redacted',
    ),
  base: UndoStateSchema.describe('the state both sides shared (the fork point or last merge)'),
  ours: UndoStateSchema.describe("the target's head (kept)"),
  theirs: UndoStateSchema.describe("the merged workspace's head"),
  keptAs: z
    .string()
    .nullable()
    .describe(
      'where theirs is kept beside the path (name.conflict-<from>-<time>.ext); null: not kept',
    ),
});
export type MergeConflict = z.infer<typeof MergeConflictSchema>;

export const MergeSummarySchema = z.object({
  create: z.number().int(),
  modify: z.number().int(),
  delete: z.number().int(),
  conflicts: z.number().int().describe('paths left as ours'),
  unchanged: z.number().int().describe('paths only ours changed, or both the same way'),
});
export type MergeSummary = z.infer<typeof MergeSummarySchema>;

export const MergePreviewSchema = z.object({
  into: z.string().describe('the target workspace (ours)'),
  from: z.string().describe('the workspace merged in (theirs)'),
  head: SeqSchema.describe("the target's head the preview saw: pass it to merge as ifHead"),
  fromHead: SeqSchema.describe("the merged workspace's head: pass it to merge as ifFromHead"),
  base: z
    .object({ intoSeq: SeqSchema, fromSeq: SeqSchema })
    .describe('the shared state, as each side numbers it'),
  summary: MergeSummarySchema,
  changes: z.array(MergeChangeSchema).describe('what the merge writes, by path'),
  conflicts: z.array(MergeConflictSchema).describe('what it leaves as ours, by path'),
  truncated: z.boolean().describe('changes or conflicts were cut at limit'),
});
export type MergePreview = z.infer<typeof MergePreviewSchema>;

export const MergeResultSchema = MergePreviewSchema.extend({
  seq: SeqSchema.nullable().describe('the one seq that wrote every change; null: nothing to do'),
  session: z
    .string()
    .nullable()
    .describe("the merge's session: undo it with {session: this}; null: nothing to do"),
});
export type MergeResult = z.infer<typeof MergeResultSchema>;
