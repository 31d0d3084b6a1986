/** Operations on access: who am I, principals, API keys, members, ownership transfers. */
import { z } from 'zod';
import {
  CallOptionsSchema,
  CreatedKeySchema,
  CreateKeySchema,
  CreatePrincipalSchema,
  InvitationSchema,
  KeyInfoSchema,
  MemberSchema,
  MembershipChangeSchema,
  MembershipSchema,
  OfferTransferSchema,
  PageOptionsSchema,
  PrincipalNameSchema,
  PrincipalSchema,
  pageSchema,
  RoleSchema,
  TransferOfferSchema,
  TransferSchema,
  WhoAmISchema,
} from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';

export const whoami = operation({
  name: 'whoami',
  summary: 'The principal and key scope the caller acts as',
  tag: 'access',
  args: [],
  result: WhoAmISchema,
  access: { self: true },
  mutates: false,
  http: { method: 'GET', path: '/whoami' },
});

export const createPrincipal = operation({
  name: 'createPrincipal',
  summary: 'Create a user or agent (admins)',
  tag: 'access',
  args: [],
  options: CreatePrincipalSchema,
  optionsRequired: true,
  result: PrincipalSchema,
  access: { global: 'admin' },
  mutates: true,
  http: { method: 'POST', path: '/principals', status: 201 },
});

export const listPrincipals = operation({
  name: 'listPrincipals',
  summary: 'Principals, by name (admins)',
  tag: 'access',
  args: [],
  options: PageOptionsSchema,
  result: pageSchema(PrincipalSchema),
  access: { global: 'admin' },
  mutates: false,
  http: { method: 'GET', path: '/principals', query: { cursor: 'string', limit: 'integer' } },
});

export const createKey = operation({
  name: 'createKey',
  summary:
    'Create an API key; the secret is in this result only. Non-admins get keys for themselves, no wider than their own',
  tag: 'access',
  args: [],
  options: CreateKeySchema,
  result: CreatedKeySchema,
  access: { self: true },
  mutates: true,
  http: { method: 'POST', path: '/keys', status: 201 },
});

export const listKeys = operation({
  name: 'listKeys',
  summary: 'Your keys (admins: everyone’s with all)',
  tag: 'access',
  args: [],
  options: z.object({ all: z.boolean().optional() }),
  result: z.array(KeyInfoSchema),
  access: { self: true },
  mutates: false,
  http: { method: 'GET', path: '/keys', query: { all: 'boolean' }, list: true },
});

export const revokeKey = operation({
  name: 'revokeKey',
  summary: 'Revoke a key (yours, or any for admins)',
  tag: 'access',
  args: [['id', z.string()]],
  result: KeyInfoSchema,
  access: { self: true },
  mutates: true,
  http: { method: 'DELETE', path: '/keys/:id' },
});

export const listMembers = operation({
  name: 'listMembers',
  summary: 'Members of a workspace with their roles',
  tag: 'access',
  args: [WORKSPACE_ARG],
  result: z.array(MemberSchema),
  access: { workspace: 'member.read' },
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws/members', list: true },
});

export const setMember = operation({
  name: 'setMember',
  summary:
    'Invite a principal with a role, or change a member’s role (owners); admins add directly. `status` says which: `invited` until the invitee accepts, or `member`',
  tag: 'access',
  args: [WORKSPACE_ARG, ['principal', PrincipalNameSchema], ['role', RoleSchema]],
  options: CallOptionsSchema,
  result: MembershipChangeSchema,
  access: { workspace: 'member.manage' },
  mutates: true,
  http: { method: 'PUT', path: '/workspaces/:ws/members/:principal' },
});

export const removeMember = operation({
  name: 'removeMember',
  summary: 'Remove a member, or withdraw a pending invitation (owners)',
  tag: 'access',
  args: [WORKSPACE_ARG, ['principal', z.string()]],
  options: CallOptionsSchema,
  access: { workspace: 'member.manage' },
  mutates: true,
  http: { method: 'DELETE', path: '/workspaces/:ws/members/:principal', status: 204 },
});

export const listWorkspaceInvitations = operation({
  name: 'listWorkspaceInvitations',
  summary: 'Pending invitations to join a workspace (owners)',
  tag: 'access',
  args: [WORKSPACE_ARG],
  result: z.array(InvitationSchema),
  access: { workspace: 'member.manage' },
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws/invitations', list: true },
});

export const listInvitations = operation({
  name: 'listInvitations',
  summary: 'Your pending invitations to join workspaces',
  tag: 'access',
  args: [],
  result: z.array(InvitationSchema),
  access: { self: true },
  mutates: false,
  http: { method: 'GET', path: '/invitations', list: true },
});

export const acceptInvitation = operation({
  name: 'acceptInvitation',
  summary:
    'Accept an invitation addressed to you and become a member (a key limited to other workspaces or read-only may not)',
  tag: 'access',
  args: [['id', z.string().min(1).max(200)]],
  options: CallOptionsSchema,
  result: MembershipSchema,
  access: { self: true },
  mutates: true,
  http: { method: 'POST', path: '/invitations/:id/accept' },
});

export const declineInvitation = operation({
  name: 'declineInvitation',
  summary: 'Decline an invitation addressed to you',
  tag: 'access',
  args: [['id', z.string().min(1).max(200)]],
  options: CallOptionsSchema,
  access: { self: true },
  mutates: true,
  http: { method: 'POST', path: '/invitations/:id/decline', status: 204 },
});

export const offerTransfer = operation({
  name: 'offerTransfer',
  summary: 'Offer ownership to a principal or to whoever holds the one-time claim code',
  tag: 'access',
  args: [WORKSPACE_ARG],
  options: OfferTransferSchema,
  result: TransferOfferSchema,
  access: { workspace: 'transfer.manage' },
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/transfers', status: 201 },
});

export const listTransfers = operation({
  name: 'listTransfers',
  summary: 'Open and past transfer offers of a workspace (owners)',
  tag: 'access',
  args: [WORKSPACE_ARG],
  result: z.array(TransferSchema),
  access: { workspace: 'transfer.manage' },
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws/transfers', list: true },
});

export const cancelTransfer = operation({
  name: 'cancelTransfer',
  summary: 'Withdraw an open transfer offer (owners)',
  tag: 'access',
  args: [WORKSPACE_ARG, ['id', z.string()]],
  options: CallOptionsSchema,
  result: TransferSchema,
  access: { workspace: 'transfer.manage' },
  mutates: true,
  http: { method: 'DELETE', path: '/workspaces/:ws/transfers/:id' },
});

export const acceptTransfer = operation({
  name: 'acceptTransfer',
  summary: 'Accept a transfer by its claim code and become owner (the code travels in the body)',
  tag: 'access',
  args: [['code', z.string().min(1).max(200)]],
  options: CallOptionsSchema,
  result: TransferSchema,
  access: { global: 'transfer.accept' },
  mutates: true,
  http: { method: 'POST', path: '/transfers/accept' },
});
