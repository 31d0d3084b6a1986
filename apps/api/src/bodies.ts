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

export const RestoreBody = WriteOptionsSchema.omit({ ifNoneMatch: true })
  .extend({ path: z.string(), seq: SeqSchema })
  .strict();

export const AcquireLockBody = AcquireLockSchema.strict();

export const RenewLockBody = z.object({ ttlSeconds: AcquireLockSchema.shape.ttlSeconds }).strict();

export const SetMemberBody = z.object({ role: RoleSchema }).strict();

export const CreatePrincipalBody = CreatePrincipalSchema.strict();

export const CreateKeyBody = CreateKeySchema.strict();

export const OfferTransferBody = OfferTransferSchema.strict();

export const AcceptTransferBody = z.object({ code: z.string().min(1).max(200) }).strict();
