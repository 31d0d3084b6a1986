/**
 * The operation table: every operation of the Satchel interface, declared once
 * (docs/architecture.md says how to add one). The audit export (a stream, not a call) and
 * `close` are the interface's only methods outside it.
 */
import * as access from './access.js';
import * as audit from './audit.js';
import * as batch from './batch.js';
import * as comments from './comments.js';
import * as files from './files.js';
import * as forks from './forks.js';
import * as locks from './locks.js';
import type { MethodOf } from './operation.js';
import * as redaction from './redaction.js';
import * as search from './search.js';
import * as shareLinks from './share-links.js';
import * as snapshots from './snapshots.js';
import * as transfers from './transfers.js';
import * as undo from './undo.js';
import * as web from './web.js';
import * as webhooks from './webhooks.js';
import * as workspaces from './workspaces.js';

/**
 * Every operation, by name: each area module exports nothing but its operations, under their
 * names (a test checks), so declaring one there is all it takes to add it to the table.
 */
export const OPERATIONS = {
  ...workspaces,
  ...files,
  ...batch,
  ...snapshots,
  ...redaction,
  ...undo,
  ...forks,
  ...search,
  ...locks,
  ...access,
  ...webhooks,
  ...audit,
  ...transfers,
  ...web,
  ...comments,
  ...shareLinks,
} as const;

export type Operations = typeof OPERATIONS;
export type OperationName = keyof Operations;

/** The methods of the Satchel interface that the table declares. */
export type OperationMethods = { readonly [K in OperationName]: MethodOf<Operations[K]> };

export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];
