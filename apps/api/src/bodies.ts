/**
 * Bodies of the JSON routes: core's option schemas plus the fields the URL does not carry.
 * Unknown fields are refused (INVALID_INPUT naming them) so a typo never silently does less.
 */
import {
  AcquireLockSchema,
  CallOptionsSchema,
  CopyOptionsSchema,
  CreateKeySchema,
  CreatePrincipalSchema,
  EditOptionsSchema,
  EditSchema,
  MoveOptionsSchema,
  MutationOptionsSchema,
  OfferTransferSchema,
  RoleSchema,
  SeqSchema,
  WriteOptionsSchema,
} from '@satchel/core/schemas';
import { z } from 'zod';

export const CreateWorkspaceBody = CallOptionsSchema.extend({ name: z.string() }).strict();

export const MoveBody = MoveOptionsSchema.extend({ from: z.string(), to: z.string() }).strict();

export const CopyBody = CopyOptionsSchema.extend({ from: z.string(), to: z.string() }).strict();

export const EditBody = EditOptionsSchema.extend({
  path: z.string(),
  edits: z.array(EditSchema).min(1).max(1000),
}).strict();

export const MkdirBody = MutationOptionsSchema.extend({ path: z.string() }).strict();

export const RestoreBody = WriteOptionsSchema.extend({ path: z.string(), seq: SeqSchema }).strict();

/** Most files one `POST …/batch` may write (the JSON body limit bounds their size). */
export const MAX_BATCH_FILES = 1000;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** One file of a batch: `content` is text, or bytes as standard base64 (`encoding: "base64"`). */
export const BatchFileBody = z
  .object({
    path: z.string(),
    content: z.string(),
    encoding: z.enum(['utf8', 'base64']).optional(),
    ifMatch: WriteOptionsSchema.shape.ifMatch,
    ifNoneMatch: WriteOptionsSchema.shape.ifNoneMatch,
  })
  .strict()
  .superRefine((file, ctx) => {
    if (file.encoding === 'base64' && !BASE64.test(file.content)) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'not valid base64' });
    }
  });

export const BatchBody = MutationOptionsSchema.extend({
  files: z.array(BatchFileBody).min(1).max(MAX_BATCH_FILES),
}).strict();

export const AcquireLockBody = AcquireLockSchema.strict();

export const RenewLockBody = z.object({ ttlSeconds: AcquireLockSchema.shape.ttlSeconds }).strict();

export const SetMemberBody = z.object({ role: RoleSchema }).strict();

export const CreatePrincipalBody = CreatePrincipalSchema.strict();

export const CreateKeyBody = CreateKeySchema.strict();

export const OfferTransferBody = OfferTransferSchema.strict();

export const AcceptTransferBody = z.object({ code: z.string().min(1).max(200) }).strict();
