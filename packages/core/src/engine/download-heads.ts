/**
 * The batch download's shortcut for small files at the head (issue 19): the entries of a page
 * of requested paths and their inline blobs in one statement, where `readFile` reads each file
 * on its own. A version asked for that is the head's (sync pins its downloads to the version
 * planned, most often the head) is the head. Anything else — an older version, content in the
 * blob store, a missing path, a directory, a redacted file — is left to `readFile`, which
 * answers it as before.
 */
import type { DownloadItem } from '@satchel/client/operations/satchel.js';
import { normalizeEntryPath } from '@satchel/client/paths.js';
import type { DownloadRequest } from '@satchel/client/schemas/index.js';
import { inlineBytes } from '../kernel/content.js';
import { type EngineContext, isRedacted } from '../kernel/context.js';
import { entryInfo } from '../kernel/records.js';
import type { WorkspaceRecord } from '../store/metadata/metadata-store.js';

/** Requests per statement. */
export const HEADS_PAGE = 200;

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/**
 * The items of `files` (one page) whose answer is an inline file at the head, by index in
 * `files`; content that fails verification is left out (`readFile` reports it).
 */
export async function inlineHeads(
  ctx: EngineContext,
  ws: WorkspaceRecord,
  files: readonly DownloadRequest[],
): Promise<Map<number, DownloadItem>> {
  const wanted = new Map<number, string>();
  for (const [i, file] of files.entries()) {
    try {
      const path = normalizeEntryPath(file.path);
      if (path !== '/') wanted.set(i, path);
    } catch {
      // An invalid path: readFile answers it.
    }
  }
  const items = new Map<number, DownloadItem>();
  if (wanted.size === 0) return items;
  const found = await ctx.store.getEntriesWithBlobs(ws.id, [...new Set(wanted.values())]);
  for (const [i, path] of wanted) {
    const row = found.get(path);
    if (row?.entry.type !== 'file' || row.blob?.location !== 'inline') continue;
    const version = files[i]?.version;
    if (version !== undefined && version !== row.entry.seq) continue;
    const info = entryInfo(row.entry);
    if (isRedacted(info)) continue;
    let bytes: Uint8Array;
    try {
      bytes = inlineBytes(row.blob, { remember: false });
    } catch {
      continue;
    }
    items.set(i, { path: info.path, info, body: once(bytes) });
  }
  return items;
}
