/**
 * Watch mode: a full cycle first, then cycles over the paths that changed — in the tree (file
 * events) or in the workspace (its change feed, long-polled from the cursor) — debounced, one at
 * a time. A failed cycle keeps its paths for the next; a failed feed call (network drop, server
 * restart) backs off and resumes from the same cursor, then runs a full cycle to be sure.
 */
import { isSatchelError } from '../errors.js';
import { normalizePath } from '../paths.js';
import type { SyncReport } from '../schemas/sync.js';
import { IGNORE_FILE, type IgnoreRules } from './ignore.js';
import { acceptedIgnoreRules } from './ignore-consent.js';
import { SyncState } from './state.js';
import { type SyncOptions, syncOnce, syncPaths } from './sync.js';
import type { TreeWatcher } from './tree.js';

export interface WatchOptions extends SyncOptions {
  /** Stops the watch; the promise of `watch` resolves once the last cycle is recorded. */
  readonly signal: AbortSignal;
  /** Quiet time after a change before a cycle starts. Default 50 ms. */
  readonly debounceMs?: number;
  /** A full cycle at least this often, for events a watcher may miss. Default 60 s. */
  readonly fullEveryMs?: number;
  /** Long-poll wait of each change-feed call. Default 20 s. */
  readonly waitSeconds?: number;
  /** Largest back-off after failures. Default 5 s. */
  readonly maxBackoffMs?: number;
  readonly onCycle?: (report: SyncReport, full: boolean) => void;
  /** Called once the first cycle is done and both sides are watched. */
  readonly onReady?: () => void;
  /** Failures the watch recovers from by itself (it keeps going). */
  readonly onError?: (error: unknown) => void;
}

/** Dirty paths past this many make the next cycle a full one. */
const MAX_PATH_CYCLE = 1000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function toWorkspacePath(name: string): string | null {
  try {
    return normalizePath(`/${name}`);
  } catch {
    return null;
  }
}

/**
 * Keeps `tree` and `workspace` in step until `signal` aborts. Rejects only when the first full
 * cycle fails (bad options, unknown workspace, no access); later failures go to `onError`.
 */
export async function watch(options: WatchOptions): Promise<void> {
  const { signal, satchel, workspace, tree } = options;
  const debounceMs = options.debounceMs ?? 50;
  const maxBackoff = options.maxBackoffMs ?? 5000;
  options.onCycle?.(await syncOnce(options), true);
  // `acceptIgnore` accepts the file the tree held when the watch started, once: a change the
  // workspace makes while it runs waits for consent like any other.
  const later: SyncOptions = { ...options, acceptIgnore: false };
  let state = await SyncState.load(tree, workspace);
  const loadRules = (): Promise<IgnoreRules> =>
    acceptedIgnoreRules(tree, state, {
      ...(options.exclude === undefined ? {} : { exclude: options.exclude }),
    });
  let rules: IgnoreRules = await loadRules();
  let cursor = state.cursor;
  const dirty = new Set<string>();
  let needFull = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let failures = 0;

  const schedule = (delay = debounceMs): void => {
    if (signal.aborted || timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      if (running) again = true;
      else
        running = cycle().finally(() => {
          running = null;
          if (again) {
            again = false;
            schedule();
          }
        });
    }, delay);
  };

  const cycle = async (): Promise<void> => {
    const paths = new Set(dirty);
    dirty.clear();
    const full = needFull || paths.size > MAX_PATH_CYCLE;
    needFull = false;
    try {
      if (full) {
        const report = await syncOnce(later);
        state = await SyncState.load(tree, workspace);
        rules = await loadRules();
        options.onCycle?.(report, true);
      } else if (paths.size > 0) {
        const report = await syncPaths(later, state, rules, paths);
        options.onCycle?.(report, false);
        // Raced changes: look again soon.
        if (report.retry > 0) for (const path of paths) dirty.add(path);
      }
      failures = 0;
      if (dirty.size > 0) schedule();
    } catch (error) {
      options.onError?.(error);
      for (const path of paths) dirty.add(path);
      needFull ||= full;
      failures++;
      schedule(Math.min(maxBackoff, debounceMs * 2 ** failures));
    }
  };

  const watcher: TreeWatcher = await tree.watch(
    (names) => {
      for (const name of names) {
        if (name === IGNORE_FILE) needFull = true;
        const path = toWorkspacePath(name);
        if (path !== null) dirty.add(path);
      }
      schedule();
    },
    () => {
      // The tree's watch was lost and set up again: what changed meanwhile is unknown.
      needFull = true;
      schedule();
    },
  );

  const feed = async (): Promise<void> => {
    let backoff = 100;
    let recovering = false;
    while (!signal.aborted) {
      const asked = Date.now();
      try {
        const page = await satchel.listChanges(workspace, {
          after: cursor,
          limit: 1000,
          waitSeconds: options.waitSeconds ?? 20,
        });
        if (signal.aborted) return;
        if (recovering) {
          recovering = false;
          needFull = true;
          schedule();
        }
        backoff = 100;
        for (const event of page.events) {
          if (event.kind === 'directory') {
            if (event.deleted || event.type === 'move') needFull = true;
            continue;
          }
          // Our own writes come back through the feed: nothing to do for them.
          const known = state.get(event.path);
          if (!event.deleted && known?.seq === event.seq) continue;
          if (event.deleted && known === undefined) continue;
          dirty.add(event.path);
          if (event.origin !== null && event.type === 'move') dirty.add(event.origin.path);
        }
        cursor = page.cursor;
        state.setCursor(cursor);
        if (page.events.length > 0) schedule();
        // A feed that answers at once with nothing (no long poll there) is not polled hot.
        else if (Date.now() - asked < 100) await sleep(1000, signal);
      } catch (error) {
        if (signal.aborted) return;
        options.onError?.(error);
        const head = beyondHead(error);
        if (head !== null) {
          // The workspace was deleted and created again (its seqs started over): sync the
          // whole tree once, then follow the new workspace from its head.
          cursor = head;
          state.setCursor(cursor);
          needFull = true;
          schedule();
          continue;
        }
        recovering = true;
        await sleep(backoff, signal);
        backoff = Math.min(maxBackoff, backoff * 2);
      }
    }
  };

  const periodic = setInterval(() => {
    needFull = true;
    schedule();
  }, options.fullEveryMs ?? 60_000);

  const feeding = feed();
  options.onReady?.();
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  clearInterval(periodic);
  if (timer !== null) clearTimeout(timer);
  await watcher.close();
  await running;
  // The feed's pending long poll ends by itself (at most `waitSeconds`); do not wait for it.
  void feeding;
  await state.checkpoint(cursor, (options.clock ?? Date.now)());
}

/** The head a change feed named when refusing a cursor past it; null for any other error. */
function beyondHead(error: unknown): number | null {
  if (!isSatchelError(error, 'INVALID_INPUT')) return null;
  const data = error.data as { reason?: unknown; head?: unknown } | undefined;
  return data?.reason === 'cursor_beyond_head' && typeof data.head === 'number' ? data.head : null;
}
