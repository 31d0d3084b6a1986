/** Workspace settings (the `settings` JSON column): reading them, and `updateWorkspace`. */

import { parseOptions } from '@satchel/client/options.js';
import { validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type UpdateWorkspace,
  UpdateWorkspaceSchema,
  type WorkspaceSettings,
} from '@satchel/client/schemas/index.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { workspaceSettings } from '../kernel/workspace-settings.js';
import type { SearchIndex } from '../search/indexer.js';

function storedSettings(raw: string): Record<string, unknown> {
  try {
    const value = JSON.parse(raw) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Changes settings (the caller checked the owner role, or the admin flag for quotas). Switching
 * indexing off drops the workspace's passages in the same transaction; switching it on starts a
 * rebuild. A quota below what the workspace stores refuses only what would grow it further.
 */
export async function updateWorkspace(
  ctx: EngineContext,
  index: SearchIndex,
  rawName: string,
  rawSettings: UpdateWorkspace,
): Promise<void> {
  const name = validateWorkspaceName(rawName);
  const { session: _session, ...changes } = parseOptions(UpdateWorkspaceSchema, rawSettings);
  await ctx.commit(async (tx) => {
    const row = await requireWorkspace(tx, name);
    const before = workspaceSettings(row.settings);
    const stored = storedSettings(row.settings);
    // Each setting changes only when given; a quota given as null is removed.
    const after: WorkspaceSettings = {
      indexing: changes.indexing ?? before.indexing,
      quotaBytes: changes.quotaBytes === undefined ? before.quotaBytes : changes.quotaBytes,
      quotaHistoryBytes:
        changes.quotaHistoryBytes === undefined
          ? before.quotaHistoryBytes
          : changes.quotaHistoryBytes,
      quotaFiles: changes.quotaFiles === undefined ? before.quotaFiles : changes.quotaFiles,
    };
    // A quota that is not set is not stored: writes then see no quota without parsing JSON.
    const kept = Object.fromEntries(
      Object.entries({ ...stored, ...after }).filter(([, value]) => value !== null),
    );
    await tx.setWorkspaceSettings(row.id, JSON.stringify(kept));
    if (after.indexing !== before.indexing) await tx.search.drop(row.id);
    return true;
  });
  index.schedule(name);
}
