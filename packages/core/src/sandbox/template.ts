/**
 * The files a sandbox got from its template, recorded when it was forked (state file
 * `template.json` in the tree's state folder: a JSON array of tree paths). They are the
 * template's, not the agent's work: runInSandbox keeps them out of sync with anchored exclude
 * patterns, and lets the workspace's own file win where both have one.
 */
import { folderPattern } from '@satchel/client/sync/ignore.js';
import type { SyncTree } from '@satchel/client/sync/tree.js';

export const TEMPLATE_STATE = 'template.json';

/** The recorded template paths of `tree` (none when it was not forked from one). */
export async function templatePaths(tree: SyncTree): Promise<string[]> {
  const text = await tree.readState(TEMPLATE_STATE);
  if (text === null) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
}

/** An anchored .gitignore pattern matching exactly the file `path` (glob characters escaped). */
export function filePattern(path: string): string {
  return folderPattern(path).slice(0, -1);
}
