/**
 * Records: the rows of the metadata store as the code outside `store/` sees them, in camelCase
 * and with numbers as numbers. The mapping from the snake_case columns of `tables.ts` lives only
 * in the area modules beside this file (`*-queries.ts`).
 */

/** A lock, in whatever state (live, expired or released). Times are epoch milliseconds. */
export interface LockRecord {
  readonly id: string;
  readonly workspaceId: string;
  readonly path: string;
  readonly scope: 'file' | 'tree';
  readonly mode: 'exclusive' | 'shared';
  readonly token: number;
  readonly holder: string;
  readonly session: string | null;
  readonly acquiredAt: number;
  readonly expiresAt: number;
  readonly releasedAt: number | null;
  readonly releasedBy: string | null;
}
