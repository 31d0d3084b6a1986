/** Reading a workspace's settings (the `settings` JSON column), defaults filled in. */
import type { WorkspaceSettings } from '@satchel/client/schemas/index.js';

const DEFAULTS: WorkspaceSettings = {
  indexing: 'on',
  quotaBytes: null,
  quotaHistoryBytes: null,
  quotaFiles: null,
};

/** A stored quota: a non-negative safe integer, or null (none) for anything else. */
function limit(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** The settings stored for a workspace, defaults filled in; unknown or malformed values ignored. */
export function workspaceSettings(raw: string | null | undefined): WorkspaceSettings {
  let stored: unknown;
  try {
    stored = JSON.parse(raw ?? '{}');
  } catch {
    return DEFAULTS;
  }
  if (typeof stored !== 'object' || stored === null) return DEFAULTS;
  const s = stored as Record<string, unknown>;
  return {
    indexing: s.indexing === 'off' ? 'off' : DEFAULTS.indexing,
    quotaBytes: limit(s.quotaBytes),
    quotaHistoryBytes: limit(s.quotaHistoryBytes),
    quotaFiles: limit(s.quotaFiles),
  };
}
