/**
 * The files a sandbox got from its template, recorded when it was forked (state file
 * `template.json` in the tree's state folder: a JSON array of `{path, size, mtimeMs}`; older
 * releases wrote bare paths). They are the template's, not the agent's work: runInSandbox keeps
 * them out of sync with anchored exclude patterns, and lets the workspace's own file win where
 * both have one — until the agent changes one: a file whose size or mtime differs from the
 * record is the agent's work from then on, and syncs like any other.
 */
import { folderPattern } from '@satchel/client/sync/ignore.js';
import type { SyncTree, TreeEntry } from '@satchel/client/sync/tree.js';

export const TEMPLATE_STATE = 'template.json';

/** A template file as it was when the sandbox was forked (size and mtime unknown: legacy). */
export interface TemplateFile {
  readonly path: string;
  readonly size?: number;
  readonly mtimeMs?: number;
}

/** The recorded template files of `tree` (none when it was not forked from one). */
export async function templateFiles(tree: SyncTree): Promise<TemplateFile[]> {
  const text = await tree.readState(TEMPLATE_STATE);
  if (text === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const files: TemplateFile[] = [];
  for (const item of parsed) {
    if (typeof item === 'string') files.push({ path: item });
    else if (typeof item === 'object' && item !== null && typeof item.path === 'string') {
      const { path, size, mtimeMs } = item as Record<string, unknown>;
      files.push({
        path: path as string,
        ...(typeof size === 'number' ? { size } : {}),
        ...(typeof mtimeMs === 'number' ? { mtimeMs } : {}),
      });
    }
  }
  return files;
}

/** Records `files` as the template's (their size and mtime now). */
export async function recordTemplateFiles(
  tree: SyncTree,
  files: readonly TemplateFile[],
): Promise<void> {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  await tree.writeState(TEMPLATE_STATE, `${JSON.stringify(sorted)}\n`);
}

/**
 * The recorded files still as the template left them: present, same size and mtime (a legacy
 * record without them counts as untouched). The others are the agent's now.
 */
export function untouchedTemplateFiles(
  recorded: readonly TemplateFile[],
  tree: readonly TreeEntry[],
): TemplateFile[] {
  const now = new Map(tree.map((entry) => [entry.path, entry]));
  return recorded.filter((file) => {
    const entry = now.get(file.path);
    if (entry === undefined || entry.type !== 'file') return false;
    if (file.size === undefined || file.mtimeMs === undefined) return true;
    return entry.size === file.size && entry.mtimeMs === file.mtimeMs;
  });
}

/** An anchored .gitignore pattern matching exactly the file `path` (glob characters escaped). */
export function filePattern(path: string): string {
  return folderPattern(path).slice(0, -1);
}
