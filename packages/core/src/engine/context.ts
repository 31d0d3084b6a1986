/** What every engine operation needs: the stores, the clock, the limits and who is calling. */
import { lookup } from 'mime-types';
import type { z } from 'zod';
import type { Actor } from '../auth/actor.js';
import { SatchelError } from '../errors.js';
import { baseName } from '../paths.js';
import type { FileInfo, Version, VersionOp } from '../schemas.js';
import type { BlobStore } from '../store/blob-store.js';
import type {
  EntryRow,
  MetadataQueries,
  MetadataStore,
  MetadataTx,
  VersionRow,
  WorkspaceRow,
} from '../store/metadata/metadata-store.js';

export interface EngineLimits {
  /** Largest file accepted by any write (TOO_LARGE above). */
  readonly maxFileSize: number;
  /** Content up to this size is stored inside the metadata database. */
  readonly inlineThreshold: number;
  /** Largest file `editFile`, `appendFile` and `diff` will load as text. */
  readonly maxTextBytes: number;
}

export interface EngineContext {
  readonly store: MetadataStore;
  readonly blobs: BlobStore;
  readonly clock: () => number;
  readonly limits: EngineLimits;
  /** Who is calling; recorded as author of versions. */
  readonly actor: Actor;
  /**
   * Runs `op` in a write transaction, group-committed, and resolves once it is durable. Every
   * mutation goes through here, so whatever must commit with a mutation (its audit entry, lock
   * checks) has one place to hook in.
   */
  commit<T>(op: (tx: MetadataTx) => Promise<T>, options?: { durable?: boolean }): Promise<T>;
}

/** Validates options against their schema: INVALID_INPUT naming the first bad field. */
export function parseOptions<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || 'options';
  throw new SatchelError(
    'INVALID_INPUT',
    `invalid ${field}: ${issue?.message ?? 'invalid value'}`,
    {
      field,
    },
  );
}

export function workspaceNotFound(name: string): SatchelError {
  return new SatchelError('NOT_FOUND', `workspace ${name} not found`, { workspace: name });
}

export async function requireWorkspace(q: MetadataQueries, name: string): Promise<WorkspaceRow> {
  const row = await q.findWorkspace(name);
  if (!row) throw workspaceNotFound(name);
  return row;
}

export function notFound(path: string, what = 'file'): SatchelError {
  return new SatchelError('NOT_FOUND', `${what} ${path} not found`, { path });
}

export function preconditionFailed(
  path: string,
  expected: number | '*',
  actual: number | null,
): SatchelError {
  const message =
    expected === '*'
      ? `${path} already exists (version ${actual}); refusing to overwrite`
      : actual === null
        ? `${path} does not exist; expected version ${expected}`
        : `${path} changed: the head is version ${actual}, not ${expected}`;
  return new SatchelError('PRECONDITION_FAILED', message, { path, expected, actual });
}

/** Checks conditional-write options against the current head entry of a path. */
export function checkPreconditions(
  path: string,
  head: EntryRow | undefined,
  options: { ifMatch?: number | undefined; ifNoneMatch?: '*' | undefined },
): void {
  if (options.ifNoneMatch === '*' && head) throw preconditionFailed(path, '*', head.seq);
  if (options.ifMatch !== undefined && head?.seq !== options.ifMatch) {
    throw preconditionFailed(path, options.ifMatch, head?.seq ?? null);
  }
}

const TEXT_SNIFF = 8192;

export function contentTypeByName(path: string): string | false {
  return lookup(baseName(path));
}

/** Content type from the file name, else sniffed: NUL bytes mean binary. */
export function contentTypeFor(path: string, head: Uint8Array): string {
  const byName = contentTypeByName(path);
  if (byName) return byName;
  return head.subarray(0, TEXT_SNIFF).includes(0) ? 'application/octet-stream' : 'text/plain';
}

export const iso = (ms: number): string => new Date(ms).toISOString();

export function entryInfo(row: EntryRow): FileInfo {
  return {
    path: row.path,
    type: row.type,
    seq: Number(row.seq),
    size: Number(row.size),
    hash: row.hash,
    contentType: row.content_type,
    author: row.author,
    session: row.session,
    modifiedAt: iso(Number(row.modified_at)),
  };
}

/** FileInfo of a historical (non-deleted) version. */
export function versionInfo(row: VersionRow): FileInfo {
  return {
    path: row.path,
    type: row.type,
    seq: Number(row.seq),
    size: Number(row.size),
    hash: row.hash,
    contentType: row.content_type,
    author: row.author,
    session: row.session,
    modifiedAt: iso(Number(row.created_at)),
  };
}

export function versionOut(row: VersionRow): Version {
  return {
    path: row.path,
    seq: Number(row.seq),
    op: row.op as VersionOp,
    deleted: row.deleted === 1,
    type: row.type,
    size: Number(row.size),
    hash: row.hash,
    author: row.author,
    session: row.session,
    time: iso(Number(row.created_at)),
    message: row.message,
    origin:
      row.origin_path !== null && row.origin_seq !== null
        ? { path: row.origin_path, seq: Number(row.origin_seq) }
        : null,
  };
}

/** Cursors are opaque to callers: base64url JSON of where the next page starts. */
export function encodeCursor(value: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<K extends string>(
  cursor: string | undefined,
  keys: readonly K[],
): Record<K, string | number> | null {
  if (cursor === undefined) return null;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    for (const key of keys) {
      const v = value[key];
      if (typeof v !== 'string' && typeof v !== 'number') throw new Error(key);
    }
    return value as Record<K, string | number>;
  } catch {
    throw new SatchelError(
      'INVALID_INPUT',
      'invalid cursor: pass nextCursor from the previous page unchanged',
      {
        field: 'cursor',
      },
    );
  }
}
