/** What every engine operation needs: the stores, the clock, the limits and who is calling. */
import { SatchelError } from '@satchel/client/errors.js';
import type { BlobStore } from '../store/blob-store.js';
import type {
  EntryRecord,
  MetadataQueries,
  MetadataStore,
  MetadataTx,
  WorkspaceRecord,
} from '../store/metadata/metadata-store.js';
import type { Actor } from './actor.js';

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

export function workspaceNotFound(name: string): SatchelError {
  return new SatchelError('NOT_FOUND', `workspace ${name} not found`, { workspace: name });
}

export async function requireWorkspace(q: MetadataQueries, name: string): Promise<WorkspaceRecord> {
  const row = await q.findWorkspace(name);
  if (!row) throw workspaceNotFound(name);
  return row;
}

export function notFound(path: string, what = 'file'): SatchelError {
  return new SatchelError('NOT_FOUND', `${what} ${path} not found`, { path, what });
}

/** A file version whose content an owner redacted: its metadata stays, its hash is gone. */
export function isRedacted(row: {
  readonly type: 'file' | 'directory';
  readonly hash: string | null;
  readonly deleted?: boolean;
}): boolean {
  return row.type === 'file' && row.hash === null && row.deleted !== true;
}

export function redactedError(path: string, seq: number): SatchelError {
  return new SatchelError(
    'REDACTED',
    `the content of ${path} at version ${seq} was redacted by an owner; it cannot be read`,
    { path, seq },
  );
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
  head: EntryRecord | undefined,
  options: { ifMatch?: number | undefined; ifNoneMatch?: '*' | undefined },
): void {
  if (options.ifNoneMatch === '*' && head) throw preconditionFailed(path, '*', head.seq);
  if (options.ifMatch !== undefined && head?.seq !== options.ifMatch) {
    throw preconditionFailed(path, options.ifMatch, head?.seq ?? null);
  }
}
