/** The named schemas of the OpenAPI document: core's zod schemas, the request bodies, problems. */
import { ERROR_CODES, type ErrorCode } from '@satchel/core';
import {
  AskResultSchema,
  AuditEntrySchema,
  AuditVerificationSchema,
  ChangesPageSchema,
  CreatedKeySchema,
  CreatedWebhookSchema,
  DiffResultSchema,
  EditResultSchema,
  FileInfoSchema,
  FsckReportSchema,
  GrepResultSchema,
  KeyInfoSchema,
  ListPageSchema,
  LockSchema,
  MemberSchema,
  PrincipalSchema,
  pageSchema,
  RemoveResultSchema,
  SearchResultSchema,
  SearchStatusSchema,
  SharedFolderSchema,
  TransferOfferSchema,
  TransferSchema,
  TransferUrlSchema,
  UploadSchema,
  VersionSchema,
  WebhookDeliverySchema,
  WebhookSchema,
  WhoAmISchema,
  WorkspaceInfoSchema,
  WorkspaceSchema,
} from '@satchel/core/schemas';
import { z } from 'zod';
import { BatchBody, DownloadFilesBody } from '../bodies.js';

/** An RFC 9457 problem as the API sends it (problem.ts), with Satchel's closed set of codes. */
export const ProblemSchema = z
  .object({
    type: z.string().describe('urn:satchel:error:<code>'),
    title: z.string(),
    status: z.number().int().describe('the HTTP status of the response'),
    detail: z.string().describe('what went wrong, for people'),
    code: z
      .enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]])
      .describe('stable machine-readable error code'),
    requestId: z.string().describe('also in X-Request-Id; quote it when reporting a fault'),
  })
  .catchall(z.unknown())
  .describe('RFC 9457 problem details; extension members carry the error data (e.g. field)');

export const HealthSchema = z.object({ status: z.literal('ok') });
export const ReadinessSchema = z.object({
  status: z.enum(['ready', 'unavailable']),
  database: z.enum(['ok', 'unreachable', 'migrations pending']),
  content: z.enum(['ok', 'unreachable']),
});

/** Schemas of response bodies, by component name (converted with zod's `io: 'output'`). */
export const OUTPUT_SCHEMAS = {
  Problem: ProblemSchema,
  Health: HealthSchema,
  Readiness: ReadinessSchema,
  Workspace: WorkspaceSchema,
  WorkspacePage: pageSchema(WorkspaceSchema),
  WorkspaceInfo: WorkspaceInfoSchema,
  FileInfo: FileInfoSchema,
  FileInfoPage: pageSchema(FileInfoSchema),
  ListPage: ListPageSchema,
  RemoveResult: RemoveResultSchema,
  EditResult: EditResultSchema,
  Version: VersionSchema,
  VersionPage: pageSchema(VersionSchema),
  DiffResult: DiffResultSchema,
  Lock: LockSchema,
  LockPage: pageSchema(LockSchema),
  ChangesPage: ChangesPageSchema,
  WhoAmI: WhoAmISchema,
  Principal: PrincipalSchema,
  PrincipalPage: pageSchema(PrincipalSchema),
  CreatedKey: CreatedKeySchema,
  KeyInfo: KeyInfoSchema,
  KeyInfoPage: pageSchema(KeyInfoSchema),
  Member: MemberSchema,
  MemberPage: pageSchema(MemberSchema),
  TransferOffer: TransferOfferSchema,
  Transfer: TransferSchema,
  TransferPage: pageSchema(TransferSchema),
  AuditEntry: AuditEntrySchema,
  AuditPage: pageSchema(AuditEntrySchema),
  AuditVerification: AuditVerificationSchema,
  FsckReport: FsckReportSchema,
  CreatedWebhook: CreatedWebhookSchema,
  Webhook: WebhookSchema,
  WebhookPage: pageSchema(WebhookSchema),
  WebhookDeliveryPage: pageSchema(WebhookDeliverySchema),
  GrepResult: GrepResultSchema,
  SearchResult: SearchResultSchema,
  AskResult: AskResultSchema,
  SearchStatus: SearchStatusSchema,
  Upload: UploadSchema,
  UploadPage: pageSchema(UploadSchema),
  TransferUrl: TransferUrlSchema,
  SharedFolder: SharedFolderSchema,
} as const satisfies Record<string, z.ZodType>;

/**
 * Schemas of the JSON request bodies of hand-written routes, by component name (converted with
 * `io: 'input'`); bodies of the operation table's routes are named after their operation.
 */
export const INPUT_SCHEMAS = {
  SharePasswordBody: z.object({ password: z.string() }),
  BatchBody,
  DownloadFilesBody,
} as const satisfies Record<string, z.ZodType>;

export type OutputName = keyof typeof OUTPUT_SCHEMAS;
export type InputName = keyof typeof INPUT_SCHEMAS;
