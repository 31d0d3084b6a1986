/**
 * Members and invitations: list_members, set_member, remove_member, list_invitations,
 * accept_invitation, decline_invitation. An owner's set_member invites; the invitee joins only by accepting.
 */
import type { Invitation } from '@satchel/core';
import { InvitationSchema, MemberSchema, RoleSchema } from '@satchel/core/schemas';
import { z } from 'zod';
import { type AnyTool, argOf, defineTool, WorkspaceArg } from '../tool.js';

const InvitationIdArg = argOf('acceptInvitation', 'id');

function invitationLine(i: Invitation): string {
  return `${i.id}: ${i.workspace} as ${i.role}, from ${i.invitedBy}, until ${i.expiresAt}`;
}

const listMembers = defineTool({
  name: 'list_members',
  title: 'List members',
  description: 'Members of the workspace and their roles.',
  operation: 'listMembers',
  input: { workspace: WorkspaceArg },
  output: { members: z.array(MemberSchema) },
  async run(args, ctx) {
    const members = await ctx.satchel.listMembers(await ctx.workspace(args.workspace));
    return {
      structured: { members },
      text: members.map((m) => `${m.principal} (${m.kind}): ${m.role}`).join('\n'),
    };
  },
});

const setMember = defineTool({
  name: 'set_member',
  title: 'Invite or set member',
  description:
    "Owners: invite a principal with a role (they join by accept_invitation), or change a member's role.",
  operation: 'setMember',
  hints: { destructive: false, idempotent: true },
  input: {
    workspace: WorkspaceArg,
    principal: argOf('setMember', 'principal'),
    role: RoleSchema,
  },
  output: {
    status: z.enum(['member', 'invited']),
    principal: z.string(),
    role: RoleSchema,
    invitationId: z.string().nullable(),
    expiresAt: z.string().nullable(),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const change = await ctx.satchel.setMember(ws, args.principal, args.role, ctx.call());
    const invited = change.status === 'invited';
    return {
      structured: {
        status: change.status,
        principal: change.principal,
        role: change.role,
        invitationId: invited ? change.id : null,
        expiresAt: invited ? change.expiresAt : null,
      },
      text: invited
        ? `invited ${change.principal} as ${change.role} of ${ws} until ${change.expiresAt}; they join once they accept`
        : `${change.principal} is now ${change.role} of ${ws}`,
    };
  },
});

const removeMember = defineTool({
  name: 'remove_member',
  title: 'Remove member',
  description: 'Owners: remove a member, or withdraw their invitation.',
  operation: 'removeMember',
  hints: { destructive: true, idempotent: true },
  input: {
    workspace: WorkspaceArg,
    principal: argOf('removeMember', 'principal').describe('principal name'),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    await ctx.satchel.removeMember(ws, args.principal, ctx.call());
    return {
      structured: { principal: args.principal, removed: true },
      text: `${args.principal} is no longer a member of ${ws}`,
    };
  },
});

const listInvitations = defineTool({
  name: 'list_invitations',
  title: 'List invitations',
  description: 'Your pending invitations to workspaces (who invited you, to what).',
  operation: 'listInvitations',
  input: {},
  output: { invitations: z.array(InvitationSchema) },
  async run(_args, ctx) {
    const invitations = await ctx.satchel.listInvitations();
    return {
      structured: { invitations },
      text:
        invitations.length === 0
          ? 'no pending invitations'
          : invitations.map(invitationLine).join('\n'),
    };
  },
});

const acceptInvitation = defineTool({
  name: 'accept_invitation',
  title: 'Accept invitation',
  description: 'Join a workspace by accepting an invitation from list_invitations.',
  operation: 'acceptInvitation',
  hints: { destructive: false, idempotent: false },
  input: { id: InvitationIdArg },
  output: MemberSchema.extend({ workspace: z.string() }).shape,
  async run(args, ctx) {
    const joined = await ctx.satchel.acceptInvitation(args.id, ctx.call());
    return { structured: joined, text: `you are now ${joined.role} of ${joined.workspace}` };
  },
});

const declineInvitation = defineTool({
  name: 'decline_invitation',
  title: 'Decline invitation',
  description: 'Decline an invitation to you.',
  operation: 'declineInvitation',
  hints: { destructive: true, idempotent: false },
  input: { id: InvitationIdArg },
  output: { id: z.string(), declined: z.boolean() },
  async run(args, ctx) {
    await ctx.satchel.declineInvitation(args.id, ctx.call());
    return { structured: { id: args.id, declined: true }, text: `declined invitation ${args.id}` };
  },
});

export const memberTools: AnyTool[] = [
  listMembers,
  setMember,
  removeMember,
  listInvitations,
  acceptInvitation,
  declineInvitation,
];
