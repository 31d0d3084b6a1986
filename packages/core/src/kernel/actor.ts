/** Who is calling: a principal, authenticated by one of its keys, within that key's narrowing. */

import type { Role } from '@satchel/client/schemas/access.js';

export type { Role };

export const ROLE_RANK: Readonly<Record<Role, number>> = { viewer: 1, editor: 2, owner: 3 };

/** What a key narrows its principal to; null means "not narrowed". */
export interface KeyScope {
  readonly workspaces: readonly string[] | null;
  readonly roleCeiling: Role | null;
  readonly pathPrefixes: readonly string[] | null;
  readonly readOnly: boolean;
}

export const UNSCOPED: KeyScope = {
  workspaces: null,
  roleCeiling: null,
  pathPrefixes: null,
  readOnly: false,
};

export interface Actor {
  readonly principalId: string;
  /** Unique, human-readable; recorded as author of versions and in the audit log. */
  readonly name: string;
  readonly kind: 'user' | 'agent';
  /** Administrators may do anything in every workspace. */
  readonly admin: boolean;
  /** The key used, or null for local access to the data directory. */
  readonly keyId: string | null;
  readonly scope: KeyScope;
}
