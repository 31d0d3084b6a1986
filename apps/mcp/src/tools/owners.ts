/**
 * What owners do beyond files: offer_transfer and accept_transfer (hand a workspace to a person),
 * list_audit (who did what, a bounded page at a time).
 */
import type { AuditEntryOut } from '@satchel/core/schemas';
import { z } from 'zod';
import { type AnyTool, argOf, defineTool, optionsOf, WorkspaceArg } from '../tool.js';

const offer = optionsOf('offerTransfer').shape;

const offerTransfer = defineTool({
  name: 'offer_transfer',
  title: 'Offer ownership',
  description:
    'Owners: offer the workspace to a person (to) or whoever has the claim code; they accept_transfer.',
  operation: 'offerTransfer',
  hints: { destructive: false, idempotent: false },
  input: {
    workspace: WorkspaceArg,
    to: offer.to,
    previousOwner: offer.previousOwner.describe('your role afterwards (default editor)'),
    expiresInHours: offer.expiresInHours,
  },
  async run(args, ctx) {
    const { workspace, ...options } = args;
    const ws = await ctx.workspace(workspace);
    const offered = await ctx.satchel.offerTransfer(ws, { ...ctx.call(), ...options });
    const who = offered.to === null ? 'whoever holds the code' : offered.to;
    return {
      structured: offered,
      text:
        `offered ${ws} to ${who} until ${offered.expiresAt} (transfer ${offered.id})\n` +
        `claim code (shown once): ${offered.code}\n` +
        `claim link (the web app, on this server): /claim?code=${encodeURIComponent(offered.code)}\n` +
        'give the code or link to the person; they accept with accept_transfer, `satchel transfer accept CODE`, or in the browser',
    };
  },
});

const acceptTransfer = defineTool({
  name: 'accept_transfer',
  title: 'Accept ownership',
  description: 'Become owner of a workspace offered to you, by its claim code.',
  operation: 'acceptTransfer',
  hints: { destructive: true, idempotent: false },
  input: { code: argOf('acceptTransfer', 'code').describe('the claim code from the offer') },
  async run(args, ctx) {
    const transfer = await ctx.satchel.acceptTransfer(args.code, ctx.call());
    return {
      structured: transfer,
      text: `you now own ${transfer.workspace} (offered by ${transfer.offeredBy})`,
    };
  },
});

function auditLine(e: AuditEntryOut): string {
  const session = e.session === null ? '' : ` [${e.session}]`;
  const where = `${e.path ?? ''}${e.seq === null ? '' : ` @${e.seq}`}`;
  const outcome = e.outcome === 'ok' ? '' : ` ${e.outcome} ${e.code ?? ''}`;
  return `${e.idx} ${e.time} ${e.actor}${session} ${e.action} ${where}${outcome}`.trimEnd();
}

const listAudit = defineTool({
  name: 'list_audit',
  title: 'List audit log',
  description:
    'Owners: the audit log, oldest first (who, session, action, path, seq, outcome); paged.',
  operation: 'listAudit',
  input: {
    workspace: WorkspaceArg,
    cursor: z.string().optional(),
    limit: z.number().int().min(1).max(200).optional().describe('default 50'),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const page = await ctx.satchel.listAudit({
      workspace: ws,
      limit: args.limit ?? 50,
      ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
    });
    const lines = page.items.map(auditLine);
    if (page.nextCursor !== null) lines.push(`[more with cursor=${page.nextCursor}]`);
    return {
      structured: page,
      text: lines.length === 0 ? 'no entries after this cursor' : lines.join('\n'),
    };
  },
});

export const ownerTools: AnyTool[] = [offerTransfer, acceptTransfer, listAudit];
