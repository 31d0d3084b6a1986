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
 * Changes settings (the caller checked the owner role). Switching indexing off drops the
 * workspace's passages in the same transaction; switching it on starts a rebuild.
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
    const after: WorkspaceSettings = { indexing: changes.indexing ?? before.indexing };
    await tx.setWorkspaceSettings(row.id, JSON.stringify({ ...stored, ...after }));
    if (after.indexing !== before.indexing) await tx.search.drop(row.id);
    return true;
  });
  index.schedule(name);
}
