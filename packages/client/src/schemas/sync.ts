/** Schemas of the sync engine (sync/): modes, reports, conflicts, status (see ../schemas.ts). */
import { z } from 'zod';
import { SeqSchema } from './files.js';

export const ContentHashSchema = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 digest: 64 lowercase hex digits')
  .describe('SHA-256 of the content, hex');

export const SyncModeSchema = z
  .enum(['two-way-safe', 'push', 'pull'])
  .describe(
    'two-way-safe: both ways, conflicts kept side by side; push: tree → workspace; ' +
      'pull: workspace → tree (a replica)',
  );
export type SyncMode = z.infer<typeof SyncModeSchema>;

export const SyncConflictSchema = z.object({
  path: z.string().describe('workspace path; the workspace version stays here'),
  base: z
    .object({ seq: SeqSchema, hash: z.string() })
    .nullable()
    .describe('the last synced version, null when the path was never synced'),
  ours: z
    .object({ hash: z.string(), size: z.number().int().nonnegative() })
    .describe('the tree content, kept beside the path as `keptAs`'),
  theirs: z
    .object({ seq: SeqSchema, hash: z.string(), size: z.number().int().nonnegative() })
    .describe('the workspace version now at `path`'),
  keptAs: z.string().describe('path of the tree version: name.conflict-<label>-<time>.ext'),
  label: z.string(),
  time: z.string().describe('ISO 8601'),
});
export type SyncConflict = z.infer<typeof SyncConflictSchema>;

export const SyncSkipReasonSchema = z.enum([
  'symlink',
  'special_file',
  'invalid_name',
  'duplicate_name',
  'type_mismatch',
  'kept_local',
  'redacted',
  'too_large',
]);
export type SyncSkipReason = z.infer<typeof SyncSkipReasonSchema>;

export const SyncSkippedSchema = z.object({
  path: z.string().describe('as found in the tree (or the workspace)'),
  reason: SyncSkipReasonSchema,
  detail: z.string().optional(),
});
export type SyncSkipped = z.infer<typeof SyncSkippedSchema>;

export const SyncNoticeSchema = z.object({
  path: z.string().describe('workspace path the notice is about'),
  reason: z
    .enum(['ignore_rules_changed', 'restore_detected'])
    .describe(
      'ignore_rules_changed: the workspace changed or deleted .satchelignore; sync keeps ' +
        'applying the rules the local user accepted until they accept the new file. ' +
        'restore_detected: files missing from the tree look restored, not deleted (a clean, ' +
        'archived or forked sandbox; all mtimes new; gitignored): brought back, not deleted',
    ),
  detail: z.string(),
});
export type SyncNotice = z.infer<typeof SyncNoticeSchema>;

export const SyncStopSchema = z.enum(['mass_delete']);

export const SyncReportSchema = z.object({
  workspace: z.string(),
  mode: SyncModeSchema,
  reset: z
    .boolean()
    .describe('true when the tree was empty, missing or had no state: rehydrated, nothing deleted'),
  uploaded: z.number().int().describe('files written to the workspace'),
  deduplicated: z
    .number()
    .int()
    .describe('of those, written by hash: the workspace had the content, no bytes sent'),
  downloaded: z.number().int().describe('files written into the tree'),
  deletedRemote: z.number().int().describe('workspace files deleted because the tree deleted them'),
  deletedLocal: z.number().int().describe('tree files deleted because the workspace deleted them'),
  unchanged: z.number().int(),
  retry: z
    .number()
    .int()
    .describe('changes that raced another writer; picked up by the next cycle'),
  bytesUp: z.number().int(),
  bytesDown: z.number().int(),
  conflicts: z.array(SyncConflictSchema),
  skipped: z.array(SyncSkippedSchema).describe('not synced: symlinks, invalid names…'),
  notices: z
    .array(SyncNoticeSchema)
    .describe('things the local user should act on, e.g. ignore rules waiting for consent'),
  stoppedReason: SyncStopSchema.nullable().describe(
    'mass_delete: the cycle would delete more than the allowed share of files; nothing was done',
  ),
  plannedDeletes: z.number().int(),
  knownFiles: z.number().int().describe('files in the last synced state'),
  cursor: SeqSchema.describe('workspace seq the cycle saw; the watch resumes its feed after it'),
  durationMs: z.number().nonnegative(),
});
export type SyncReport = z.infer<typeof SyncReportSchema>;

export const SyncStatusSchema = z.object({
  workspace: z.string().nullable().describe('null when the tree was never synced'),
  lastSyncAt: z
    .string()
    .nullable()
    .describe('end of the last cycle that changed something (ISO 8601)'),
  files: z.number().int().describe('files in the last synced state'),
  cursor: SeqSchema,
  conflicts: z.array(SyncConflictSchema).describe('conflicts kept side by side, newest last'),
});
export type SyncStatus = z.infer<typeof SyncStatusSchema>;
