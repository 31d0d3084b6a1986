/** Schemas of principals, keys, members, ownership transfers, locks and the audit log. */
import { z } from 'zod';
import { PRINCIPAL_KINDS, ROLES } from './choices.js';
import { CallOptionsSchema, SeqSchema } from './files.js';

export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

const NAME = /^[a-z0-9][a-z0-9._@-]{0,62}$/;
export const PrincipalNameSchema = z
  .string()
  .regex(NAME, 'use 1-63 characters a-z, 0-9, ".", "_", "@", "-", starting with a letter or digit');

export const PrincipalKindSchema = z.enum(PRINCIPAL_KINDS);

export const PrincipalSchema = z.object({
  name: z.string(),
  kind: PrincipalKindSchema,
  admin: z.boolean(),
  createdAt: z.string(),
});
export type Principal = z.infer<typeof PrincipalSchema>;

export const CreatePrincipalSchema = z.object({
  name: PrincipalNameSchema,
  kind: PrincipalKindSchema.default('agent'),
});
export type CreatePrincipal = z.input<typeof CreatePrincipalSchema>;

const PathPrefixSchema = z.string().min(1).max(4096);

export const CreateKeySchema = z.object({
  principal: PrincipalNameSchema.optional().describe('whose key (admins only); default: yourself'),
  label: z.string().max(200).optional(),
  workspaces: z.array(z.string()).max(100).optional().describe('only these workspaces'),
  role: RoleSchema.optional().describe(
    'role ceiling: never more than this, whatever the membership',
  ),
  pathPrefixes: z
    .array(PathPrefixSchema)
    .max(100)
    .optional()
    .describe('changes only beneath these paths, e.g. ["/agent-output"]'),
  readOnly: z.boolean().optional(),
  expiresInSeconds: z.number().int().positive().optional(),
});
export type CreateKey = z.infer<typeof CreateKeySchema>;

export const KeyInfoSchema = z.object({
  id: z.string(),
  principal: z.string(),
  label: z.string().nullable(),
  workspaces: z.array(z.string()).nullable(),
  role: RoleSchema.nullable(),
  pathPrefixes: z.array(z.string()).nullable(),
  readOnly: z.boolean(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type KeyInfo = z.infer<typeof KeyInfoSchema>;

export const CreatedKeySchema = z.object({
  key: z.string().describe('the secret: shown this once, stored only as a hash'),
  info: KeyInfoSchema,
});
export type CreatedKey = z.infer<typeof CreatedKeySchema>;

export const MemberSchema = z.object({
  principal: z.string(),
  kind: PrincipalKindSchema,
  role: RoleSchema,
  since: z.string(),
});
export type Member = z.infer<typeof MemberSchema>;

/**
 * A pending invitation to join a workspace: membership exists only once the invitee accepts.
 * Its shape is the same whether or not the invited name is a principal (no existence oracle).
 */
export const InvitationSchema = z.object({
  id: z.string(),
  workspace: z.string(),
  principal: z.string().describe('who is invited'),
  role: RoleSchema,
  invitedBy: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type Invitation = z.infer<typeof InvitationSchema>;

/** A membership with its workspace: what accepting an invitation makes. */
export const MembershipSchema = MemberSchema.extend({ workspace: z.string() });
export type Membership = z.infer<typeof MembershipSchema>;

/**
 * What `setMember` did: `member` — the membership exists now (an admin adds directly; an
 * existing member's role changes); `invited` — an invitation waits for the invitee to accept.
 */
export const MembershipChangeSchema = z.discriminatedUnion('status', [
  MemberSchema.extend({ status: z.literal('member') }),
  InvitationSchema.extend({ status: z.literal('invited') }),
]);
export type MembershipChange = z.infer<typeof MembershipChangeSchema>;

export const WhoAmISchema = z.object({
  principal: z.string(),
  kind: PrincipalKindSchema,
  admin: z.boolean(),
  key: KeyInfoSchema.nullable().describe('the key in use; null for local access'),
});
export type WhoAmI = z.infer<typeof WhoAmISchema>;

export const OfferTransferSchema = CallOptionsSchema.extend({
  to: PrincipalNameSchema.optional().describe('only this principal may accept'),
  previousOwner: z
    .enum(['editor', 'none'])
    .optional()
    .describe('what the offering owner becomes once accepted (default editor)'),
  expiresInHours: z
    .number()
    .positive()
    .max(24 * 30)
    .optional()
    .describe('default 72'),
});
export type OfferTransfer = z.infer<typeof OfferTransferSchema>;

export const TransferSchema = z.object({
  id: z.string(),
  workspace: z.string(),
  offeredBy: z.string(),
  to: z.string().nullable(),
  previousOwner: z.enum(['editor', 'none']),
  createdAt: z.string(),
  expiresAt: z.string(),
  status: z.enum(['open', 'accepted', 'cancelled', 'expired']),
});
export type Transfer = z.infer<typeof TransferSchema>;

export const TransferOfferSchema = TransferSchema.extend({
  code: z.string().describe('one-time claim code: shown this once, stored only as a hash'),
});
export type TransferOffer = z.infer<typeof TransferOfferSchema>;

export const LockScopeSchema = z.enum(['file', 'tree']);
export const LockModeSchema = z.enum(['exclusive', 'shared']);

export const AcquireLockSchema = CallOptionsSchema.extend({
  path: z.string(),
  scope: LockScopeSchema.optional().describe('file (default) or tree: the path and all beneath'),
  mode: LockModeSchema.optional().describe('exclusive (default) or shared'),
  ttlSeconds: z.number().int().min(1).max(3600).optional().describe('lease length, default 60'),
  waitSeconds: z
    .number()
    .min(0)
    .max(300)
    .optional()
    .describe('wait this long for a conflicting lock'),
});
export type AcquireLock = z.infer<typeof AcquireLockSchema>;

export const LockSchema = z.object({
  id: z.string(),
  workspace: z.string(),
  path: z.string(),
  scope: LockScopeSchema,
  mode: LockModeSchema,
  token: z.number().int().describe('fencing token: pass it as lockToken on writes'),
  holder: z.string(),
  session: z.string().nullable(),
  acquiredAt: z.string(),
  expiresAt: z.string(),
});
export type Lock = z.infer<typeof LockSchema>;

export const AuditEntrySchema = z.object({
  idx: z.number().int(),
  time: z.string(),
  actor: z.string(),
  session: z.string().nullable(),
  action: z.string(),
  workspace: z.string().nullable().describe('the workspace name at the time of the call'),
  workspaceId: z
    .string()
    .nullable()
    .describe(
      'the id of the workspace the call reached (never reused); null outside any workspace, for a name with no workspace, and in entries written before ids were recorded',
    ),
  path: z.string().nullable(),
  seq: SeqSchema.nullable(),
  outcome: z.enum(['ok', 'refused', 'error']),
  code: z.string().nullable(),
  prevHash: z.string(),
  hash: z.string(),
});
export type AuditEntryOut = z.infer<typeof AuditEntrySchema>;

export const AuditQuerySchema = z.object({
  workspace: z.string().optional(),
  server: z
    .boolean()
    .optional()
    .describe(
      'only the server-level log: entries with no workspace id (refused keys, rate-limited calls, calls against names with no workspace; admins)',
    ),
  cursor: z.string().optional(),
  limit: z.number().int().min(1).max(1000).optional(),
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

export const AuditVerificationSchema = z.object({
  ok: z.boolean(),
  entries: z.number().int(),
  index: z.number().int().nullable().describe('first bad entry'),
  reason: z.string().nullable(),
  checkpoint: z
    .enum(['matched', 'missing', 'disabled'])
    .nullable()
    .describe('whether the tail was checked against the checkpoint file (null when broken)'),
});
export type AuditVerificationOut = z.infer<typeof AuditVerificationSchema>;
