/**
 * Ownership transfer: an owner offers the workspace (to a named principal, or to whoever holds
 * the one-time claim code); accepting makes the claimant owner and the offering owner editor
 * (or nothing). Codes are stored hashed, expire (72 h by default), and at most 5 are open.
 */
import { randomUUID } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import {
  type OfferTransfer,
  OfferTransferSchema,
  type Transfer,
  type TransferOffer,
} from '@satchel/client/schemas/index.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { iso } from '../kernel/records.js';
import type { MetadataQueries } from '../store/metadata/metadata-store.js';
import type { TransferRecord } from '../store/metadata/records.js';
import { requirePrincipal } from './access.js';
import { authorizeOwnership } from './authorize.js';
import { generateClaimCode, sha256 } from './keys.js';
import { endOwnership } from './members.js';

export const MAX_OPEN_TRANSFERS = 5;
const DEFAULT_HOURS = 72;

async function transferOut(
  q: MetadataQueries,
  row: TransferRecord,
  workspace: string,
  now: number,
): Promise<Transfer> {
  const name = async (id: string | null) =>
    id === null ? null : ((await q.access.principalById(id))?.name ?? id);
  const status =
    row.acceptedAt !== null
      ? 'accepted'
      : row.cancelledAt !== null
        ? 'cancelled'
        : row.expiresAt <= now
          ? 'expired'
          : 'open';
  return {
    id: row.id,
    workspace,
    offeredBy: (await name(row.offeredBy)) ?? '',
    to: await name(row.toPrincipal),
    previousOwner: row.previousOwnerRole,
    createdAt: iso(row.createdAt),
    expiresAt: iso(row.expiresAt),
    status,
  };
}

export async function offerTransfer(
  ctx: EngineContext,
  workspace: string,
  input?: OfferTransfer,
): Promise<TransferOffer> {
  const options = parseOptions(OfferTransferSchema, input);
  const { code, codeHash } = generateClaimCode();
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const now = ctx.clock();
    const open = await tx.transfers.open(ws.id, now);
    if (open.length >= MAX_OPEN_TRANSFERS) {
      throw new SatchelError(
        'CONFLICT',
        `${workspace} already has ${open.length} open transfer offers; cancel one first`,
        { reason: 'too_many_offers', limit: MAX_OPEN_TRANSFERS },
      );
    }
    const to = options.to ? await requirePrincipal(tx, options.to) : null;
    const row: TransferRecord = {
      id: randomUUID(),
      workspaceId: ws.id,
      codeHash,
      offeredBy: ctx.actor.principalId,
      toPrincipal: to?.id ?? null,
      previousOwnerRole: options.previousOwner ?? 'editor',
      createdAt: now,
      expiresAt: now + (options.expiresInHours ?? DEFAULT_HOURS) * 3_600_000,
      acceptedAt: null,
      acceptedBy: null,
      cancelledAt: null,
    };
    await tx.transfers.insert(row);
    return { ...(await transferOut(tx, row, ws.name, now)), code };
  });
}

export async function listTransfers(ctx: EngineContext, workspace: string): Promise<Transfer[]> {
  const ws = await requireWorkspace(ctx.store, workspace);
  const now = ctx.clock();
  const rows = await ctx.store.transfers.open(ws.id, now);
  return Promise.all(rows.map((row) => transferOut(ctx.store, row, ws.name, now)));
}

export async function cancelTransfer(
  ctx: EngineContext,
  workspace: string,
  id: string,
): Promise<Transfer> {
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const row = typeof id === 'string' ? await tx.transfers.byId(ws.id, id) : undefined;
    const now = ctx.clock();
    if (!row) throw new SatchelError('NOT_FOUND', `transfer ${id} not found`, { transfer: id });
    const current = await transferOut(tx, row, ws.name, now);
    if (current.status !== 'open') {
      throw new SatchelError('CONFLICT', `transfer ${id} is ${current.status}`, {
        reason: current.status,
      });
    }
    await tx.transfers.close(row.id, { cancelledAt: now });
    return { ...current, status: 'cancelled' };
  });
}

/** The workspace a claim code is for, so the caller can authorise and audit before accepting. */
export async function transferWorkspace(q: MetadataQueries, code: string): Promise<string | null> {
  const row =
    typeof code === 'string' ? await q.transfers.byCodeHash(sha256(code.trim())) : undefined;
  if (!row) return null;
  const names = await q.workspaceNames();
  return names.find((w) => w.id === row.workspaceId)?.name ?? null;
}

/**
 * Accepts an offer with its claim code: the caller becomes owner. NOT_FOUND for an unknown,
 * used, cancelled or expired code (data.reason says which, for a known code); FORBIDDEN if the
 * offer names someone else.
 */
export async function acceptTransfer(ctx: EngineContext, code: string): Promise<Transfer> {
  return ctx.commit(async (tx) => {
    const row =
      typeof code === 'string' ? await tx.transfers.byCodeHash(sha256(code.trim())) : undefined;
    if (!row)
      throw new SatchelError('NOT_FOUND', 'no transfer offer has this claim code', {
        reason: 'unknown',
      });
    const now = ctx.clock();
    const ws = (await tx.workspaceNames()).find((w) => w.id === row.workspaceId);
    if (!ws)
      throw new SatchelError('NOT_FOUND', 'the workspace of this offer no longer exists', {
        reason: 'unknown',
      });
    const current = await transferOut(tx, row, ws.name, now);
    if (current.status !== 'open') {
      throw new SatchelError(
        'NOT_FOUND',
        `this claim code is ${current.status === 'accepted' ? 'already used' : current.status}`,
        {
          reason: current.status,
        },
      );
    }
    if (row.toPrincipal !== null && row.toPrincipal !== ctx.actor.principalId) {
      throw new SatchelError(
        'FORBIDDEN',
        `this offer is for ${current.to}, not ${ctx.actor.name}`,
        { reason: 'not_recipient' },
      );
    }
    authorizeOwnership(ctx.actor, ws.name);
    await tx.transfers.close(row.id, { acceptedAt: now, acceptedBy: ctx.actor.principalId });
    await tx.members.put({
      workspaceId: ws.id,
      principalId: ctx.actor.principalId,
      role: 'owner',
      createdAt: now,
    });
    const previous = await tx.members.roleOf(ws.id, row.offeredBy);
    if (row.offeredBy !== ctx.actor.principalId && previous !== null) {
      if (previous === 'owner') await endOwnership(tx, ws, current.offeredBy, now);
      if (row.previousOwnerRole === 'none') {
        await tx.members.delete(ws.id, row.offeredBy);
      } else {
        await tx.members.put({
          workspaceId: ws.id,
          principalId: row.offeredBy,
          role: 'editor',
          createdAt: now,
        });
      }
    }
    return { ...current, status: 'accepted' };
  });
}
