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
import type { TransferRow } from '../store/metadata/access-queries.js';
import * as access from '../store/metadata/access-queries.js';
import type { MetadataQueries } from '../store/metadata/metadata-store.js';
import { requirePrincipal } from './access.js';
import { generateClaimCode, sha256 } from './keys.js';

export const MAX_OPEN_TRANSFERS = 5;
const DEFAULT_HOURS = 72;

async function transferOut(
  q: MetadataQueries,
  row: TransferRow,
  workspace: string,
  now: number,
): Promise<Transfer> {
  const name = async (id: string | null) =>
    id === null ? null : ((await access.principalById(q.kysely, id))?.name ?? id);
  const status =
    row.accepted_at !== null
      ? 'accepted'
      : row.cancelled_at !== null
        ? 'cancelled'
        : Number(row.expires_at) <= now
          ? 'expired'
          : 'open';
  return {
    id: row.id,
    workspace,
    offeredBy: (await name(row.offered_by)) ?? '',
    to: await name(row.to_principal),
    previousOwner: row.previous_owner_role,
    createdAt: iso(Number(row.created_at)),
    expiresAt: iso(Number(row.expires_at)),
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
    const open = await access.openTransfers(tx.kysely, ws.id, now);
    if (open.length >= MAX_OPEN_TRANSFERS) {
      throw new SatchelError(
        'CONFLICT',
        `${workspace} already has ${open.length} open transfer offers; cancel one first`,
        { reason: 'too_many_offers', limit: MAX_OPEN_TRANSFERS },
      );
    }
    const to = options.to ? await requirePrincipal(tx, options.to) : null;
    const row: TransferRow = {
      id: randomUUID(),
      workspace_id: ws.id,
      code_hash: codeHash,
      offered_by: ctx.actor.principalId,
      to_principal: to?.id ?? null,
      previous_owner_role: options.previousOwner ?? 'editor',
      created_at: now,
      expires_at: now + (options.expiresInHours ?? DEFAULT_HOURS) * 3_600_000,
      accepted_at: null,
      accepted_by: null,
      cancelled_at: null,
    };
    await access.insertTransfer(tx.kysely, row);
    return { ...(await transferOut(tx, row, ws.name, now)), code };
  });
}

export async function listTransfers(ctx: EngineContext, workspace: string): Promise<Transfer[]> {
  const ws = await requireWorkspace(ctx.store, workspace);
  const now = ctx.clock();
  const rows = await access.openTransfers(ctx.store.kysely, ws.id, now);
  return Promise.all(rows.map((row) => transferOut(ctx.store, row, ws.name, now)));
}

export async function cancelTransfer(
  ctx: EngineContext,
  workspace: string,
  id: string,
): Promise<Transfer> {
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const row =
      typeof id === 'string' ? await access.transferById(tx.kysely, ws.id, id) : undefined;
    const now = ctx.clock();
    if (!row) throw new SatchelError('NOT_FOUND', `transfer ${id} not found`, { transfer: id });
    const current = await transferOut(tx, row, ws.name, now);
    if (current.status !== 'open') {
      throw new SatchelError('CONFLICT', `transfer ${id} is ${current.status}`, {
        reason: current.status,
      });
    }
    await access.closeTransfer(tx.kysely, row.id, { cancelled_at: now });
    return { ...current, status: 'cancelled' };
  });
}

/** The workspace a claim code is for, so the caller can authorise and audit before accepting. */
export async function transferWorkspace(q: MetadataQueries, code: string): Promise<string | null> {
  const row =
    typeof code === 'string'
      ? await access.transferByCodeHash(q.kysely, sha256(code.trim()))
      : undefined;
  if (!row) return null;
  const names = await q.workspaceNames();
  return names.find((w) => w.id === row.workspace_id)?.name ?? null;
}

/**
 * Accepts an offer with its claim code: the caller becomes owner. NOT_FOUND for an unknown,
 * used, cancelled or expired code (data.reason says which, for a known code); FORBIDDEN if the
 * offer names someone else.
 */
export async function acceptTransfer(ctx: EngineContext, code: string): Promise<Transfer> {
  return ctx.commit(async (tx) => {
    const row =
      typeof code === 'string'
        ? await access.transferByCodeHash(tx.kysely, sha256(code.trim()))
        : undefined;
    if (!row)
      throw new SatchelError('NOT_FOUND', 'no transfer offer has this claim code', {
        reason: 'unknown',
      });
    const now = ctx.clock();
    const ws = (await tx.workspaceNames()).find((w) => w.id === row.workspace_id);
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
    if (row.to_principal !== null && row.to_principal !== ctx.actor.principalId) {
      throw new SatchelError(
        'FORBIDDEN',
        `this offer is for ${current.to}, not ${ctx.actor.name}`,
        { reason: 'not_recipient' },
      );
    }
    await access.closeTransfer(tx.kysely, row.id, {
      accepted_at: now,
      accepted_by: ctx.actor.principalId,
    });
    await access.putMember(tx.kysely, {
      workspace_id: ws.id,
      principal_id: ctx.actor.principalId,
      role: 'owner',
      created_at: now,
    });
    const previous = await access.roleOf(tx.kysely, ws.id, row.offered_by);
    if (row.offered_by !== ctx.actor.principalId && previous !== null) {
      if (row.previous_owner_role === 'none') {
        await access.deleteMember(tx.kysely, ws.id, row.offered_by);
      } else {
        await access.putMember(tx.kysely, {
          workspace_id: ws.id,
          principal_id: row.offered_by,
          role: 'editor',
          created_at: now,
        });
      }
    }
    return { ...current, status: 'accepted' };
  });
}
