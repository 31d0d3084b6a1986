/** Schemas of grep, search, ask and the search index's status (see ../schemas.ts, docs/search.md). */
import { z } from 'zod';
import {
  AtSchema,
  CallOptionsSchema,
  IndexingSchema,
  QuotaLimitSchema,
  SeqSchema,
} from './files.js';

export const UpdateWorkspaceSchema = CallOptionsSchema.extend({
  indexing: IndexingSchema.optional().describe('off drops the search index; on rebuilds it'),
  quotaBytes: QuotaLimitSchema.optional().describe(
    'bytes of the current files (admins; null removes the limit)',
  ),
  quotaHistoryBytes: QuotaLimitSchema.optional().describe(
    'bytes of every version kept (admins; null removes the limit)',
  ),
  quotaFiles: QuotaLimitSchema.optional().describe(
    'number of current files (admins; null removes the limit)',
  ),
}).strict();
export type UpdateWorkspace = z.infer<typeof UpdateWorkspaceSchema>;

export const GrepOptionsSchema = CallOptionsSchema.extend({
  path: z.string().optional().describe('file or directory to search (default "/")'),
  at: AtSchema.optional(),
  glob: z
    .string()
    .max(1000)
    .optional()
    .describe('glob on the path relative to `path`, e.g. "**/*.md"'),
  regex: z
    .boolean()
    .optional()
    .describe('treat the pattern as an RE2 regular expression (default: a literal string)'),
  caseSensitive: z.boolean().optional().describe('default true'),
  limit: z.number().int().min(1).max(1000).optional().describe('most hits (default 100, max 1000)'),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(30_000)
    .optional()
    .describe('time budget in milliseconds (default 2000, max 30000)'),
  maxFiles: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe('most files to scan (default 100000)'),
  maxBytes: z.number().int().min(1).optional().describe('most bytes to scan (default 1 GiB)'),
});
export type GrepOptions = z.infer<typeof GrepOptionsSchema>;

export const GrepHitSchema = z.object({
  path: z.string(),
  seq: SeqSchema.describe('version of the file that was searched'),
  line: z.number().int().positive().describe('1-based line number'),
  text: z.string().describe('the line without its terminator, cut around the match if long'),
});
export type GrepHit = z.infer<typeof GrepHitSchema>;

export const GrepStopSchema = z.enum(['limit', 'time', 'files', 'bytes']);
export type GrepStop = z.infer<typeof GrepStopSchema>;

export const GrepResultSchema = z.object({
  hits: z.array(GrepHitSchema),
  truncated: z.boolean().describe('true when a budget stopped the scan before the end'),
  reason: GrepStopSchema.nullable().describe('which budget stopped the scan (null when complete)'),
  filesScanned: z.number().int(),
  bytesScanned: z.number().int(),
  skippedBinary: z.number().int().describe('files skipped as binary (not UTF-8 text)'),
  skippedLarge: z.number().int().describe('files skipped as larger than the text limit'),
});
export type GrepResult = z.infer<typeof GrepResultSchema>;

export const SearchOptionsSchema = CallOptionsSchema.extend({
  path: z.string().optional().describe('only passages of files at or beneath this path'),
  at: AtSchema.optional().describe(
    'search the files as they were at this seq or snapshot (a bounded scan)',
  ),
  limit: z.number().int().min(1).max(100).optional().describe('most passages (default 10)'),
});
export type SearchOptions = z.infer<typeof SearchOptionsSchema>;

export const CitationSchema = z.object({
  path: z.string(),
  seq: SeqSchema.describe('the version cited: read it with `version: seq`'),
  lineStart: z.number().int().positive().describe('first line of the passage, 1-based'),
  lineEnd: z.number().int().positive().describe('last line of the passage, inclusive'),
});
export type Citation = z.infer<typeof CitationSchema>;

export const SearchHitSchema = z.object({
  citation: CitationSchema,
  snippet: z.string().describe('matching terms wrapped in « and »'),
  text: z.string().describe('the whole passage: lines lineStart..lineEnd of version seq'),
  score: z.number().describe('higher is better; comparable only within one result'),
});
export type SearchHit = z.infer<typeof SearchHitSchema>;

export const SearchModeSchema = z.enum(['bm25', 'hybrid', 'scan']);

export const SearchResultSchema = z.object({
  items: z.array(SearchHitSchema),
  mode: SearchModeSchema.describe(
    'hybrid: an embedding provider ranked too; scan: `at` a past seq, the files then were read',
  ),
  indexedSeq: SeqSchema.describe('the index reflects the workspace up to this seq'),
  headSeq: SeqSchema,
  truncated: z.boolean().optional().describe('scan: a budget ended it before every file'),
});
export type SearchResult = z.infer<typeof SearchResultSchema>;

export const AskOptionsSchema = CallOptionsSchema.extend({
  path: z.string().optional().describe('only passages of files at or beneath this path'),
  limit: z.number().int().min(1).max(20).optional().describe('passages to retrieve (default 6)'),
});
export type AskOptions = z.infer<typeof AskOptionsSchema>;

export const NumberedCitationSchema = CitationSchema.extend({
  n: z.number().int().positive().describe('the [n] used in the answer'),
});
export type NumberedCitation = z.infer<typeof NumberedCitationSchema>;

export const AskResultSchema = z.object({
  question: z.string(),
  answer: z.string().nullable().describe('null when no language model is configured'),
  model: z.string().nullable(),
  citations: z
    .array(NumberedCitationSchema)
    .describe('the passages the answer cites; citations of no retrieved passage are dropped'),
  dropped: z.array(z.number().int()).describe('[n] markers removed: they named no passage'),
  passages: z.array(SearchHitSchema).describe('the retrieved passages; passage n is [n]'),
  note: z.string().nullable(),
});
export type AskResult = z.infer<typeof AskResultSchema>;

export const SearchStatusSchema = z.object({
  enabled: z.boolean().describe('the workspace setting `indexing`'),
  indexedSeq: SeqSchema,
  headSeq: SeqSchema,
  lag: z.number().int().describe('changes not yet indexed (headSeq - indexedSeq)'),
  rebuilding: z.boolean().describe('a rebuild (reindex, or indexing switched on) is under way'),
  passages: z.number().int(),
  files: z.number().int().describe('files with indexed passages'),
  vectors: z
    .object({
      model: z.string(),
      pending: z.number().int().describe('passages without a vector yet'),
      error: z.string().nullable().describe('the last failure of the embedding provider'),
    })
    .nullable()
    .describe('null when no embedding provider is configured'),
});
export type SearchStatus = z.infer<typeof SearchStatusSchema>;
