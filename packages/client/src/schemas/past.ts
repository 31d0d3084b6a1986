/** Schemas of snapshots and redaction: naming a state of a workspace, removing content for good. */
import { z } from 'zod';
import { CallOptionsSchema, SeqSchema } from './files.js';

export const SnapshotSchema = z.object({
  name: z.string(),
  seq: SeqSchema.describe('the state of the workspace it names'),
  createdAt: z.string().describe('ISO 8601'),
  createdBy: z.string(),
  message: z.string().nullable(),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;

export const CreateSnapshotOptionsSchema = CallOptionsSchema.extend({
  seq: SeqSchema.optional().describe('the seq to name (default: the head)'),
  message: z.string().max(1000).optional(),
});
export type CreateSnapshotOptions = z.infer<typeof CreateSnapshotOptionsSchema>;

export const RedactOptionsSchema = CallOptionsSchema.extend({
  version: SeqSchema.optional().describe('the version whose content goes'),
  all: z.boolean().optional().describe('every version of the path (give this or version)'),
});
export type RedactOptions = z.infer<typeof RedactOptionsSchema>;

export const RedactResultSchema = z.object({
  path: z.string(),
  seqs: z.array(SeqSchema).describe('the versions whose content was removed, newest first'),
});
export type RedactResult = z.infer<typeof RedactResultSchema>;
