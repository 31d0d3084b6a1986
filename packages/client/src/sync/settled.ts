/**
 * Saved positions: the workspace seq at which the workspace's files were exactly the ones the
 * state records. While the workspace's seq has not moved from there (and the ignore rules are
 * the same), its listing is the state itself: a no-change cycle, or a restarted sandbox whose
 * files are intact, costs a stat walk and one small request instead of a full listing.
 *
 * A position is only ever saved after it was checked: the listing a cycle planned from, changed
 * by the cycle's own writes as the change feed reports them, must equal the state. Any change of
 * another writer in between (or anything the cycle left undone) fails the check, and the next
 * cycle lists the workspace as before.
 */
import type { Satchel } from '../operations/satchel.js';
import type { OwnWrites } from './apply-context.js';
import type { IgnoreRules } from './ignore.js';
import type { RemoteFile } from './plan.js';
import type { SettledPosition, SyncState } from './state.js';

const FEED_PAGE = 1000;
/** Beyond this many changes since the listing, checking costs more than the next listing. */
const MAX_FEED_EVENTS = 50_000;

/** Whether the saved position still holds: the workspace is at it (`head`), under the same rules. */
export function positionHolds(state: SyncState, rules: IgnoreRules, head: number): boolean {
  const settled = state.settled;
  return settled !== null && settled.seq === head && settled.rules === rules.key;
}

/** The workspace's files as the state records them, when the saved position still holds. */
export function settledListing(
  state: SyncState,
  rules: IgnoreRules,
  head: number,
): Map<string, RemoteFile> | null {
  if (!positionHolds(state, rules, head)) return null;
  const remote = new Map<string, RemoteFile>();
  for (const [path, file] of state.files()) {
    remote.set(path, { path, seq: file.seq, hash: file.hash, size: file.size });
  }
  return remote;
}

function ignored(rules: IgnoreRules, path: string): boolean {
  const name = path.slice(1);
  return rules.trivial ? rules.ignores(name, false, true) : rules.ignores(name);
}

/**
 * The position to save after a cycle that planned from `listed` (the workspace at `cursor`),
 * or null when the workspace now differs from the state. The changes after `cursor` must all be
 * the cycle's own: a write the state records at that very seq, or the deletion of a path the
 * state no longer has. Folders and ignored paths are not sync's business.
 */
export async function settle(
  satchel: Satchel,
  workspace: string,
  state: SyncState,
  rules: IgnoreRules,
  listed: ReadonlyMap<string, RemoteFile>,
  cursor: number,
  acted: boolean,
  own?: OwnWrites,
): Promise<SettledPosition | null> {
  const expected = new Map<string, number>();
  for (const [path, file] of listed) {
    // A write that landed during the listing: the cursor does not cover it.
    if (file.seq > cursor) return null;
    expected.set(path, file.seq);
  }
  let head = cursor;
  if (acted) {
    head = (await satchel.getWorkspace(workspace)).seq;
    const mine = ownSince(own, cursor, head);
    if (mine) {
      // Every seq since the listing is one of the cycle's own writes: no feed to read.
      for (const [seq, path] of mine) if (!ignored(rules, path)) expected.set(path, seq);
    } else if (head - cursor > MAX_FEED_EVENTS) return null;
    for (let after = cursor; !mine && after < head; ) {
      const page = await satchel.listChanges(workspace, { after, limit: FEED_PAGE });
      for (const event of page.events) {
        if (event.kind !== 'file' || event.seq > head || ignored(rules, event.path)) continue;
        const recorded = state.get(event.path);
        if (event.deleted) {
          if (recorded !== undefined) return null;
          expected.delete(event.path);
        } else {
          if (recorded?.seq !== event.version) return null;
          expected.set(event.path, event.version);
        }
      }
      if (page.cursor <= after) break;
      after = page.cursor;
    }
  }
  const files = state.files();
  if (files.size !== expected.size) return null;
  for (const [path, file] of files) {
    if (expected.get(path) !== file.seq) return null;
  }
  return { seq: head, rules: rules.key };
}

/**
 * The cycle's own writes after `cursor` in seq order, when they are every seq up to `head`
 * (each seq is one change, so no other writer's change can hide among them); else null.
 */
function ownSince(
  own: OwnWrites | undefined,
  cursor: number,
  head: number,
): Array<[number, string]> | null {
  if (own === undefined || own.unaccounted) return null;
  const mine = [...own.seqs].filter(([seq]) => seq > cursor && seq <= head);
  if (mine.length !== head - cursor) return null;
  return mine.sort(([a], [b]) => a - b);
}
