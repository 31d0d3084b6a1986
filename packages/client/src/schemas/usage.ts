/** What a workspace stores and the quotas on it (see ../schemas.ts, docs/storage.md, Quotas). */
import { z } from 'zod';
import { QuotaLimitSchema } from './files.js';

export const WorkspaceUsageSchema = z.object({
  workspace: z.string(),
  currentBytes: z.number().int().describe('bytes of the current files'),
  historyBytes: z
    .number()
    .int()
    .describe('bytes of every version kept, current ones included (deleted files too)'),
  deduplicatedBytes: z
    .number()
    .int()
    .describe('bytes of the distinct content those versions hold: each blob counted once'),
  files: z.number().int().describe('current files (directories not counted)'),
  quota: z.object({
    bytes: QuotaLimitSchema.describe('limit on currentBytes; null: none'),
    historyBytes: QuotaLimitSchema.describe('limit on historyBytes; null: none'),
    files: QuotaLimitSchema.describe('limit on files; null: none'),
  }),
});
export type WorkspaceUsage = z.infer<typeof WorkspaceUsageSchema>;
