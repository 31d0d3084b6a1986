/**
 * Schemas of undo (docs/time-travel.md): which changes to take back (a session's, a principal's
 * since a point, or everything since a point), the preview of what that does to each path, and
 * the result of applying it.
 */
import { z } from 'zod';
import { PrincipalNameSchema } from './access.js';
import {
  AtSchema,
  CallOptionsSchema,
  EntryTypeSchema,
  LockTokenSchema,
  SeqSchema,
  SessionSchema,
  VersionSchema,
} from './files.js';

/** The changes an undo takes back; at least `session`, `since` or `sinceTime`. */
export const UndoTargetSchema = z
  .object({
    session: SessionSchema.optional().describe('the changes made in this session'),
    principal: PrincipalNameSchema.optional().describe('only changes this principal made'),
    since: AtSchema.optional().describe(
      'only changes after this seq or snapshot (everything after it when alone)',
    ),
    sinceTime: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('only changes at or after this time (ISO 8601)'),
  })
  .refine((t) => t.session !== undefined || t.since !== undefined || t.sinceTime !== undefined, {
    message: 'say which changes to undo: a session, since (a seq or snapshot), or sinceTime',
  });
export type UndoTarget = z.infer<typeof UndoTargetSchema>;

export const UndoPreviewOptionsSchema = CallOptionsSchema.extend({
  force: z
    .boolean()
    .optional()
    .describe('also revert paths someone else changed afterwards (their changes are lost)'),
  diff: z
    .boolean()
    .optional()
    .describe('include a bounded unified diff per text file (default true)'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .describe('most changes and conflicts listed (default 1000); the summary counts them all'),
});
export type UndoPreviewOptions = z.infer<typeof UndoPreviewOptionsSchema>;

export const UndoOptionsSchema = UndoPreviewOptionsSchema.extend({
  ifHead: SeqSchema.describe(
    "the preview's head: refused (PRECONDITION_FAILED) if anything the undo touches changed after it",
  ),
  lockToken: LockTokenSchema.optional(),
  message: z.string().max(1000).optional(),
});
export type UndoOptions = z.infer<typeof UndoOptionsSchema>;

/** A path's state at one point: the version that was current (a deletion too), or null: none. */
export const UndoStateSchema = VersionSchema.pick({
  seq: true,
  deleted: true,
  type: true,
  size: true,
  hash: true,
  author: true,
  session: true,
}).nullable();
export type UndoState = z.infer<typeof UndoStateSchema>;

export const UndoActionSchema = z
  .enum(['revert', 'delete', 'recreate'])
  .describe(
    'revert: content back to what it was; delete: it was created, so it goes; recreate: it was deleted, so it comes back',
  );
export type UndoAction = z.infer<typeof UndoActionSchema>;

export const UndoChangeSchema = z.object({
  path: z.string(),
  type: EntryTypeSchema.describe('what the path is after the undo (for delete: before it)'),
  action: UndoActionSchema,
  from: UndoStateSchema.describe('the head now'),
  to: UndoStateSchema.describe('the state the undo brings back'),
  forced: z.boolean().describe('a conflict reverted because force was given'),
  diff: z
    .string()
    .nullable()
    .describe('unified diff head → result (text files, bounded); null when omitted'),
  diffNote: z
    .string()
    .nullable()
    .describe('why the diff is missing or cut (binary, too large, budget)'),
});
export type UndoChange = z.infer<typeof UndoChangeSchema>;

export const UndoConflictSchema = z.object({
  path: z.string(),
  reason: z
    .enum(['changed_since', 'not_empty', 'parent_is_file'])
    .describe(
      'changed_since: someone else changed it after the undone change; not_empty: a directory to remove still holds entries that stay; parent_is_file: a file now sits where its directory would be',
    ),
  base: UndoStateSchema.describe('before the undone changes (what undo would bring back)'),
  ours: UndoStateSchema.describe('after the undone changes'),
  theirs: UndoStateSchema.describe('the head now'),
});
export type UndoConflict = z.infer<typeof UndoConflictSchema>;

export const UndoSummarySchema = z.object({
  revert: z.number().int(),
  delete: z.number().int(),
  recreate: z.number().int(),
  forced: z.number().int().describe('changes that revert a conflict because force was given'),
  conflicts: z.number().int().describe('paths left as they are'),
  unchanged: z.number().int().describe('paths already back where the undo would put them'),
});
export type UndoSummary = z.infer<typeof UndoSummarySchema>;

export const UndoPreviewSchema = z.object({
  head: SeqSchema.describe('the workspace head the preview saw: pass it to undo as ifHead'),
  since: SeqSchema.describe('changes after this seq were considered'),
  summary: UndoSummarySchema,
  changes: z.array(UndoChangeSchema).describe('what the undo writes, by path'),
  conflicts: z.array(UndoConflictSchema).describe('what it leaves, by path'),
  truncated: z.boolean().describe('changes or conflicts were cut at limit'),
});
export type UndoPreview = z.infer<typeof UndoPreviewSchema>;

export const UndoResultSchema = UndoPreviewSchema.extend({
  seq: SeqSchema.nullable().describe('the one seq that wrote every change; null: nothing to do'),
  session: z
    .string()
    .nullable()
    .describe("the undo's own session: undo it with {session: this}; null: nothing to do"),
});
export type UndoResult = z.infer<typeof UndoResultSchema>;
