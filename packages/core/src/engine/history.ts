/** Version history: resolving a version (across moves), listing history, diffs between versions. */

import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizeEntryPath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type DiffOptions,
  DiffOptionsSchema,
  type DiffResult,
  type Page,
  type PageOptions,
  PageOptionsSchema,
  type Version,
} from '@satchel/client/schemas/index.js';
import { createTwoFilesPatch } from 'diff';
import { isBinary, readWhole } from '../kernel/content.js';
import {
  type EngineContext,
  isRedacted,
  notFound,
  redactedError,
  requireWorkspace,
} from '../kernel/context.js';
import { decodeCursor, encodeCursor } from '../kernel/cursors.js';
import { versionOut } from '../kernel/records.js';
import type { MetadataQueries, VersionRecord } from '../store/metadata/metadata-store.js';

const MAX_MOVE_HOPS = 1000;

/** Where a path's history continues before its first version here: the source of a move. */
async function movedFrom(
  q: MetadataQueries,
  workspaceId: string,
  path: string,
): Promise<{ path: string; seq: number } | null> {
  const [oldest] = await q.listVersions(workspaceId, path, null, 1, 'asc');
  if (oldest?.op !== 'move' || oldest.origin === null) return null;
  return { path: oldest.origin.path, seq: oldest.origin.seq };
}

/**
 * The version of `path` at `seq`, following the file back across moves: version 3 of a file
 * that was written as /a and later moved to /b is found as /b@3.
 */
export async function resolveVersion(
  q: MetadataQueries,
  workspaceId: string,
  path: string,
  seq: number,
): Promise<VersionRecord | undefined> {
  let current = path;
  for (let hop = 0; hop < MAX_MOVE_HOPS; hop++) {
    const row = await q.getVersion(workspaceId, current, seq);
    if (row) return row;
    const origin = await movedFrom(q, workspaceId, current);
    if (!origin || seq > origin.seq) return undefined;
    current = origin.path;
  }
  return undefined;
}

export async function listVersions(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  rawOptions?: PageOptions,
): Promise<Page<Version>> {
  validateWorkspaceName(workspace);
  const path = normalizeEntryPath(rawPath);
  const options = parseOptions(PageOptionsSchema, rawOptions);
  const limit = options.limit ?? 100;
  const ws = await requireWorkspace(ctx.store, workspace);
  const cursor = decodeCursor(options.cursor, ['p', 'b']);
  let current = cursor ? String(cursor.p) : path;
  let before: number | null = cursor ? Number(cursor.b) : null;
  const items: Version[] = [];
  for (let hop = 0; hop < MAX_MOVE_HOPS; hop++) {
    const rows = await ctx.store.listVersions(ws.id, current, before, limit - items.length + 1);
    for (const row of rows) {
      if (items.length === limit) {
        return { items, nextCursor: encodeCursor({ p: current, b: row.seq + 1 }) };
      }
      items.push(versionOut(row));
    }
    const origin = await movedFrom(ctx.store, ws.id, current);
    if (!origin) break;
    current = origin.path;
    before = origin.seq + 1;
  }
  if (items.length === 0 && cursor === null) throw notFound(path);
  return { items, nextCursor: null };
}

async function previousVersion(
  q: MetadataQueries,
  workspaceId: string,
  row: VersionRecord,
): Promise<VersionRecord | undefined> {
  const [prev] = await q.listVersions(workspaceId, row.path, row.seq, 1);
  if (prev) return prev;
  const origin = await movedFrom(q, workspaceId, row.path);
  return origin ? resolveVersion(q, workspaceId, origin.path, origin.seq) : undefined;
}

export async function diff(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  rawOptions?: DiffOptions,
): Promise<DiffResult> {
  validateWorkspaceName(workspace);
  const path = normalizeEntryPath(rawPath);
  const options = parseOptions(DiffOptionsSchema, rawOptions);
  const ws = await requireWorkspace(ctx.store, workspace);
  const q = ctx.store;
  const to =
    options.to === undefined
      ? await q.getVersion(ws.id, path)
      : await resolveVersion(q, ws.id, path, options.to);
  if (!to) throw notFound(options.to === undefined ? path : `${path}@${options.to}`, 'version');
  let from: VersionRecord | undefined;
  if (options.from !== undefined) {
    from = await resolveVersion(q, ws.id, path, options.from);
    if (!from) throw notFound(`${path}@${options.from}`, 'version');
  } else {
    from = await previousVersion(q, ws.id, to);
  }
  if (to.type === 'directory' || from?.type === 'directory') {
    throw new SatchelError('INVALID_INPUT', `${path} is a directory; diff compares file versions`, {
      path,
    });
  }
  const max = ctx.limits.maxTextBytes;
  const load = async (row: VersionRecord | undefined) => {
    if (row && isRedacted(row)) throw redactedError(row.path, row.seq);
    return row?.hash ? readWhole(ctx, q, row.hash, max, 'diff') : Buffer.alloc(0);
  };
  const [a, b] = await Promise.all([load(from), load(to)]);
  const fromSeq = from?.seq ?? null;
  const toSeq = to.seq;
  if (isBinary(a) || isBinary(b)) {
    const same = a.equals(b);
    return {
      path,
      from: fromSeq,
      to: toSeq,
      binary: true,
      diff: same ? '' : `Binary files ${path}@${fromSeq ?? 'none'} and ${path}@${toSeq} differ\n`,
    };
  }
  const text = createTwoFilesPatch(
    `${from?.path ?? path}`,
    `${to.path}`,
    a.toString('utf8'),
    b.toString('utf8'),
    fromSeq === null ? 'absent' : `version ${fromSeq}`,
    `version ${toSeq}`,
    { context: options.context ?? 3 },
  );
  return { path, from: fromSeq, to: toSeq, binary: false, diff: text };
}
