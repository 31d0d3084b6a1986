/** Reading a workspace's settings (the `settings` JSON column), defaults filled in. */
import type { WorkspaceSettings } from '@satchel/client/schemas/index.js';

const DEFAULTS: WorkspaceSettings = { indexing: 'on' };

/** The settings stored for a workspace, defaults filled in; unknown or malformed values ignored. */
export function workspaceSettings(raw: string | null | undefined): WorkspaceSettings {
  let stored: unknown;
  try {
    stored = JSON.parse(raw ?? '{}');
  } catch {
    return DEFAULTS;
  }
  const indexing = (stored as { indexing?: unknown } | null)?.indexing;
  return { indexing: indexing === 'off' ? 'off' : DEFAULTS.indexing };
}
