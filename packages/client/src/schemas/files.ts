/** Schemas of workspaces, files, versions and their call options (see ../schemas.ts). */
import { z } from 'zod';
import { VERSION_OPS } from './choices.js';

export const SeqSchema = z.number().int().nonnegative();
export const LimitSchema = z.number().int().min(1).max(1000);
export const CursorSchema = z.string().min(1).max(4096);

export const PageOptionsSchema = z.object({
  cursor: CursorSchema.optional(),
  limit: LimitSchema.optional().describe('maximum items to return (default 100, max 1000)'),
});
export type PageOptions = z.infer<typeof PageOptionsSchema>;

export const WorkspaceSchema = z.object({
  name: z.string(),
  seq: SeqSchema.describe('sequence number of the newest mutation'),
  createdAt: z.string().describe('ISO 8601'),
});
export type Workspace = z.infer<typeof WorkspaceSchema>;

export const IndexingSchema = z.enum(['on', 'off']);

/** A quota: a limit, or null for none (unlimited). */
export const QuotaLimitSchema = z.number().int().nonnegative().nullable();

export const WorkspaceSettingsSchema = z.object({
  indexing: IndexingSchema.describe('search indexing of text files (default on)'),
  quotaBytes: QuotaLimitSchema.describe('limit on the bytes of the current files; null: none'),
  quotaHistoryBytes: QuotaLimitSchema.describe(
    'limit on the bytes of every version kept, current ones included; null: none',
  ),
  quotaFiles: QuotaLimitSchema.describe('limit on the number of current files; null: none'),
});
export type WorkspaceSettings = z.infer<typeof WorkspaceSettingsSchema>;

export const WorkspaceInfoSchema = WorkspaceSchema.extend({
  files: z.number().int().describe('current files (deleted files excluded)'),
  directories: z.number().int(),
  bytes: z.number().int().describe('sum of the current files sizes'),
  versions: z.number().int().describe('stored versions, tombstones included'),
  settings: WorkspaceSettingsSchema,
  fork: z
    .object({ source: z.string(), seq: SeqSchema })
    .nullable()
    .describe('where it was forked from, at which seq; null: not a fork'),
});
export type WorkspaceInfo = z.infer<typeof WorkspaceInfoSchema>;

export const EntryTypeSchema = z.enum(['file', 'directory']);
export type EntryType = z.infer<typeof EntryTypeSchema>;

export const FileInfoSchema = z.object({
  path: z.string(),
  type: EntryTypeSchema,
  seq: SeqSchema.describe('the version: seq of the mutation that wrote this entry; also its ETag'),
  size: z.number().int().nonnegative(),
  hash: z.string().nullable().describe('SHA-256 of the content, hex; null for directories'),
  contentType: z.string().nullable(),
  author: z.string(),
  session: z.string().nullable(),
  modifiedAt: z.string().describe('ISO 8601'),
  unchanged: z
    .boolean()
    .optional()
    .describe(
      'true: a retried ifMatch write found its content already at the head; nothing written',
    ),
});
export type FileInfo = z.infer<typeof FileInfoSchema>;

export const VersionOpSchema = z.enum(VERSION_OPS);
export type VersionOp = z.infer<typeof VersionOpSchema>;

export const VersionSchema = z.object({
  path: z.string(),
  seq: SeqSchema,
  op: VersionOpSchema,
  deleted: z.boolean(),
  type: EntryTypeSchema,
  size: z.number().int().nonnegative(),
  hash: z.string().nullable(),
  author: z.string(),
  session: z.string().nullable(),
  time: z.string().describe('ISO 8601'),
  message: z.string().nullable(),
  origin: z
    .object({ path: z.string(), seq: SeqSchema })
    .nullable()
    .describe('for move, copy and restore: the version the content came from'),
});
export type Version = z.infer<typeof VersionSchema>;

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export const SessionSchema = z
  .string()
  .min(1)
  .max(200)
  .describe('free-form label of the agent run or session, stored on versions and audit entries');

export const CallOptionsSchema = z.object({ session: SessionSchema.optional() });
export type CallOptions = z.infer<typeof CallOptionsSchema>;

export const LockTokenSchema = z
  .number()
  .int()
  .positive()
  .describe('fencing token of a lock you hold on the path; refused if it is no longer live');

/** Options of every mutation of a file: a session label and the fencing token of a held lock. */
export const MutationOptionsSchema = CallOptionsSchema.extend({
  lockToken: LockTokenSchema.optional(),
});
export type MutationOptions = z.infer<typeof MutationOptionsSchema>;

export const WriteOptionsSchema = MutationOptionsSchema.extend({
  ifMatch: SeqSchema.optional().describe('write only if the head version is this seq'),
  ifNoneMatch: z.literal('*').optional().describe('"*": create only, fail if the file exists'),
  message: z.string().max(1000).optional(),
});
export type WriteOptions = z.infer<typeof WriteOptionsSchema>;

/** Options of `writeFile`: a write's, and the content's length when it is known beforehand. */
export const WriteFileOptionsSchema = WriteOptionsSchema.extend({
  size: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      "the content's length in bytes, when known beforehand (HTTP Content-Length): a write over a quota is refused before any byte is stored",
    ),
});
export type WriteFileOptions = z.infer<typeof WriteFileOptionsSchema>;

export const AppendOptionsSchema = MutationOptionsSchema.extend({
  ifMatch: SeqSchema.optional(),
  message: z.string().max(1000).optional(),
});
export type AppendOptions = z.infer<typeof AppendOptionsSchema>;

export const ByteRangeSchema = z.object({
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative().optional().describe('exclusive; default: end of file'),
});
export type ByteRange = z.infer<typeof ByteRangeSchema>;

/** A snapshot's name: a word a person would type, never only digits (those are seqs). */
export const SnapshotNameSchema = z
  .string()
  .regex(/^(?![0-9]+$)[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
    message:
      'a snapshot name is 1-64 letters, digits, dots, dashes or underscores, starts with a letter or digit, and is not only digits',
  })
  .describe('e.g. "before-run"');

/** The workspace as it was: a seq, or a snapshot's name (a string of digits is a seq). */
export const AtSchema = z
  .union([SeqSchema, z.string().min(1).max(64)])
  .describe('read the workspace as it was at this seq or snapshot');

export const ReadOptionsSchema = CallOptionsSchema.extend({
  version: SeqSchema.optional(),
  at: AtSchema.optional(),
  range: ByteRangeSchema.optional(),
});
export type ReadOptions = z.infer<typeof ReadOptionsSchema>;

export const ReadTextOptionsSchema = CallOptionsSchema.extend({
  version: SeqSchema.optional(),
  at: AtSchema.optional(),
  head: z.number().int().positive().optional().describe('first N lines'),
  tail: z.number().int().positive().optional().describe('last N lines'),
  offset: z.number().int().positive().optional().describe('first line to return, 1-based'),
  limit: z.number().int().positive().optional().describe('number of lines to return'),
  column: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      'characters of the first line to skip (a nextColumn), for lines longer than maxBytes',
    ),
  maxBytes: z.number().int().positive().optional().describe('cap on returned text (default 1 MiB)'),
});
export type ReadTextOptions = z.infer<typeof ReadTextOptionsSchema>;

export const TextSliceSchema = z.object({
  info: FileInfoSchema,
  text: z.string(),
  lineStart: z.number().int().describe('1-based number of the first returned line'),
  lineEnd: z.number().int().describe('number of the last returned line (lineStart - 1 when empty)'),
  totalLines: z.number().int().nullable().describe('null when reading stopped early'),
  truncated: z
    .boolean()
    .describe('true when more lines exist after lineEnd or maxBytes cut the text'),
  nextColumn: z
    .number()
    .int()
    .nullable()
    .describe(
      'set when maxBytes cut line lineEnd itself: read on with offset lineEnd and this column',
    ),
});
export type TextSlice = z.infer<typeof TextSliceSchema>;

export const ListOptionsSchema = CallOptionsSchema.extend({
  path: z.string().optional().describe('directory to list (default "/")'),
  recursive: z.boolean().optional(),
  glob: z
    .string()
    .max(1000)
    .optional()
    .describe('glob on the path relative to `path`, e.g. "**/*.md"'),
  at: AtSchema.optional(),
  cursor: CursorSchema.optional(),
  limit: LimitSchema.optional(),
});
export type ListOptions = z.infer<typeof ListOptionsSchema>;

export const ListPageSchema = pageSchema(FileInfoSchema).extend({
  total: z.number().int().describe('entries matching the listing across all pages'),
});
export type ListPage = z.infer<typeof ListPageSchema>;

export const RemoveOptionsSchema = MutationOptionsSchema.extend({
  ifMatch: SeqSchema.optional(),
  recursive: z.boolean().optional().describe('required to delete a non-empty directory'),
});
export type RemoveOptions = z.infer<typeof RemoveOptionsSchema>;

export const RemoveResultSchema = z.object({
  seq: SeqSchema,
  removed: z.number().int().describe('files and directories removed'),
});
export type RemoveResult = z.infer<typeof RemoveResultSchema>;

export const MoveOptionsSchema = MutationOptionsSchema.extend({
  overwrite: z.boolean().optional().describe('replace an existing file at the destination'),
  ifMatch: SeqSchema.optional().describe('move only if the source head is this seq'),
});
export type MoveOptions = z.infer<typeof MoveOptionsSchema>;

export const CopyOptionsSchema = MutationOptionsSchema.extend({
  overwrite: z.boolean().optional(),
});
export type CopyOptions = z.infer<typeof CopyOptionsSchema>;

export const EditSchema = z.object({
  oldText: z.string().min(1),
  newText: z.string(),
  replaceAll: z.boolean().optional().describe('replace every occurrence instead of exactly one'),
});
export type Edit = z.infer<typeof EditSchema>;

export const EditOptionsSchema = MutationOptionsSchema.extend({
  dryRun: z.boolean().optional(),
  ifMatch: SeqSchema.optional(),
  replaceAll: z.boolean().optional().describe('default for edits that do not set replaceAll'),
  message: z.string().max(1000).optional(),
});
export type EditOptions = z.infer<typeof EditOptionsSchema>;

export const EditResultSchema = z.object({
  diff: z.string().describe('unified diff of the change'),
  replacements: z.number().int(),
  dryRun: z.boolean(),
  info: FileInfoSchema.describe('the new version, or the unchanged head on a dry run'),
});
export type EditResult = z.infer<typeof EditResultSchema>;

export const DiffOptionsSchema = CallOptionsSchema.extend({
  from: SeqSchema.optional().describe('default: the version before `to`'),
  to: SeqSchema.optional().describe('default: the head'),
  context: z.number().int().min(0).max(1000).optional(),
});
export type DiffOptions = z.infer<typeof DiffOptionsSchema>;

export const DiffResultSchema = z.object({
  path: z.string(),
  from: SeqSchema.nullable(),
  to: SeqSchema,
  binary: z.boolean(),
  diff: z.string(),
});
export type DiffResult = z.infer<typeof DiffResultSchema>;

export const FsckReportSchema = z.object({
  ok: z.boolean().describe('false when content is missing or corrupt; orphans alone keep it true'),
  blobsChecked: z.number().int(),
  versionsChecked: z.number().int(),
  corrupt: z.array(z.object({ hash: z.string(), reason: z.string() })),
  missing: z.array(
    z.object({ workspace: z.string(), path: z.string(), seq: SeqSchema, hash: z.string() }),
  ),
  orphans: z
    .array(z.string())
    .describe('stored blobs no version refers to (left by interrupted writes)'),
  truncated: z.boolean().describe('true when a list above was cut at 1000 entries'),
});
export type FsckReport = z.infer<typeof FsckReportSchema>;

/** Default grace period of garbage collection: content younger than this is never removed. */
export const DEFAULT_GC_GRACE_SECONDS = 3600;

export const GcOptionsSchema = z.object({
  dryRun: z
    .boolean()
    .optional()
    .describe('report what would be removed and remove nothing (default false)'),
  graceSeconds: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'keep content registered, or seen in the blob store without a registration, less than ' +
        `this many seconds ago (default ${DEFAULT_GC_GRACE_SECONDS})`,
    ),
});
export type GcOptions = z.infer<typeof GcOptionsSchema>;

export const GcReportSchema = z.object({
  dryRun: z.boolean(),
  graceSeconds: z.number().int(),
  removed: z
    .number()
    .int()
    .describe('contents removed (would be, in a dry run): registry rows and blob-store files'),
  bytesFreed: z
    .number()
    .int()
    .describe('size of the removed registered contents (unregistered files are not counted)'),
  unregisteredFiles: z
    .number()
    .int()
    .describe('of `removed`: blob-store files that no registry row named'),
  keptInGrace: z
    .number()
    .int()
    .describe('unregistered blob-store files kept because they were seen within the grace period'),
  resumed: z
    .number()
    .int()
    .describe('deletions an interrupted earlier run had decided, finished by this one'),
  hashes: z.array(z.string()).describe('the removed contents, at most 1000'),
  truncated: z.boolean().describe('true when `hashes` was cut at 1000'),
  durationMs: z.number().int(),
});
export type GcReport = z.infer<typeof GcReportSchema>;

export const ChangeEventSchema = z.object({
  seq: SeqSchema.describe(
    'the mutation; several events share it when one change touched many paths',
  ),
  type: VersionOpSchema,
  path: z.string(),
  version: SeqSchema.describe('the version this event created at `path` (equal to seq)'),
  deleted: z.boolean(),
  kind: EntryTypeSchema,
  size: z.number().int().nonnegative(),
  hash: z.string().nullable(),
  actor: z.string(),
  session: z.string().nullable(),
  time: z.string().describe('ISO 8601'),
  origin: z.object({ path: z.string(), seq: SeqSchema }).nullable(),
});
export type ChangeEvent = z.infer<typeof ChangeEventSchema>;

export const ListChangesOptionsSchema = CallOptionsSchema.extend({
  after: SeqSchema.optional().describe(
    'return changes with a seq above this (default 0: from the start)',
  ),
  limit: LimitSchema.optional().describe(
    'maximum events (default 100); a change is never split across pages',
  ),
  waitSeconds: z
    .number()
    .min(0)
    .max(60)
    .optional()
    .describe('when nothing is newer, wait up to this long for a change (long poll)'),
  path: z.string().optional().describe('only changes at or beneath this path'),
});
export type ListChangesOptions = z.infer<typeof ListChangesOptionsSchema>;

export const ChangesPageSchema = z.object({
  events: z.array(ChangeEventSchema),
  cursor: SeqSchema.describe('pass as `after` to continue; the seq of the last event, or `after`'),
});
export type ChangesPage = z.infer<typeof ChangesPageSchema>;
