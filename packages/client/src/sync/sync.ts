import { eachLimit } from '../each-limit.js';
import { isSatchelError, SatchelError } from '../errors.js';
import type { Satchel } from '../operations/satchel.js';
import {
  type SyncMode,
  SyncModeSchema,
  type SyncReport,
  type SyncStatus,
} from '../schemas/sync.js';
import { Applier, type ApplyResult, emptyApplyResult, type SyncProgress } from './apply.js';
import { merge, type OwnWrites } from './apply-context.js';
import { IGNORE_FILE, type IgnoreRules } from './ignore.js';
import { acceptedIgnoreRules, ignoreNotices } from './ignore-consent.js';
import { checkInStep, inStepReport } from './in-step.js';
import {
  DEFAULT_MAX_DELETE_SHARE,
  isReset,
  type LocalFile,
  type Plan,
  plan,
  type RemoteFile,
} from './plan.js';
import {
  detectRestore,
  loadGitignore,
  type Restore,
  restoreNotice,
  withoutRestored,
} from './restore.js';
import { classify, hashListed, listRemote, type Scan, scanTree } from './scan.js';
import { positionHolds, settle, settledListing } from './settled.js';
import { SyncState } from './state.js';
import type { SyncTree, TreeEntry } from './tree.js';

export type { SyncProgress } from './apply.js';

export interface SyncOptions {
  readonly satchel: Satchel;
  readonly workspace: string;
  readonly tree: SyncTree;
  /** Default `two-way-safe`. */
  readonly mode?: SyncMode;
  /** Names this side in conflict copies (`name.conflict-<label>-<time>.ext`). Default `local`. */
  readonly label?: string;
  /** Apply a plan even when it deletes more than `maxDeleteShare` of the known files. */
  readonly force?: boolean;
  /** Default 0.5. */
  readonly maxDeleteShare?: number;
  /** Transfers in flight at once. Default 8. */
  readonly concurrency?: number;
  /** More ignore patterns (.gitignore syntax), e.g. the data directory inside the tree. */
  readonly exclude?: readonly string[];
  /**
   * Accept the `.satchelignore` the tree holds now, though the workspace changed it: without
   * this, rules that came from the workspace are not applied (ignore-consent.ts).
   */
  readonly acceptIgnore?: boolean;
  /** Session label stored on the versions sync writes. */
  readonly session?: string;
  readonly clock?: () => number;
  readonly onProgress?: (progress: SyncProgress) => void;
  /**
   * Files at least this large are uploaded resumably: an upload cut off by a dropped connection
   * or a reset sandbox continues from the server's offset in the next run. Unset: never (the
   * CLI sets 8 MiB when it talks to a server; SATCHEL_UPLOAD_THRESHOLD).
   */
  readonly resumableAbove?: number;
  /** Files go through the batch transfer calls (see `ApplyContext.batchTransfer` for the default). */
  readonly batchTransfer?: boolean;
  /**
   * The tree was restored by its host (a sandbox's clean, archived or forked boot): files
   * missing from it are brought back from the workspace, never deleted there (restore.ts).
   */
  readonly restored?: boolean;
  /** Send even restore-like absences (restore.ts) to the workspace as deletions. */
  readonly deleteRestored?: boolean;
}

/**
 * A cycle with nothing to do: the workspace is at the saved position (`holds`), and the tree
 * holds exactly the files the state records, each as recorded (size, mtime, inode), with no
 * link or unreadable file among them. Planned, every path would be in step.
 */
function quiet(scan: Scan, state: SyncState, holds: boolean): boolean {
  return (
    holds &&
    state.size > 0 &&
    scan.asRecorded === state.size &&
    scan.local.size === state.size &&
    scan.links.size === 0 &&
    scan.unread.size === 0
  );
}

/** The plan of a quiet cycle (`quiet`) over `known` files. */
function inStep(known: number): Plan {
  return { actions: [], unchanged: known, kept: [], held: [], deletes: 0, known, stopped: null };
}

/** Cycles a one-shot sync runs when changes raced it, before it leaves them to the next run. */
const MAX_PASSES = 3;
function checkOptions(options: SyncOptions): SyncMode {
  const mode = SyncModeSchema.safeParse(options.mode ?? 'two-way-safe');
  if (!mode.success) {
    throw new SatchelError('INVALID_INPUT', 'mode must be two-way-safe, push or pull', {
      field: 'mode',
    });
  }
  const share = options.maxDeleteShare ?? DEFAULT_MAX_DELETE_SHARE;
  if (!(share >= 0 && share <= 1)) {
    throw new SatchelError('INVALID_INPUT', 'maxDeleteShare must be between 0 and 1', {
      field: 'maxDeleteShare',
    });
  }
  return mode.data;
}

/** One cycle's pieces, shared by full and path cycles. */
interface Cycle {
  readonly local: Map<string, LocalFile>;
  readonly remote: Map<string, RemoteFile>;
  readonly plan: Plan;
}

async function applyCycle(
  options: SyncOptions,
  state: SyncState,
  cycle: Cycle,
  remoteHashes: ReadonlySet<string>,
  own?: OwnWrites,
): Promise<ApplyResult> {
  const applier = new Applier({
    satchel: options.satchel,
    workspace: options.workspace,
    tree: options.tree,
    state,
    label: options.label ?? 'local',
    ...(options.session === undefined ? {} : { session: options.session }),
    clock: options.clock ?? Date.now,
    concurrency: options.concurrency ?? 8,
    remoteHashes,
    taken: (path) => cycle.local.has(path) || cycle.remote.has(path),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    ...(options.resumableAbove === undefined ? {} : { resumableAbove: options.resumableAbove }),
    ...(options.batchTransfer === undefined ? {} : { batchTransfer: options.batchTransfer }),
    ...(own === undefined ? {} : { own }),
  });
  await applier.apply(cycle.plan.actions);
  return applier.result;
}

/**
 * One full cycle between `tree` and `workspace`: scans the tree (hashing only files whose size
 * or mtime changed), lists the workspace, plans three-way against the state kept in the tree and
 * applies the plan (see plan.ts for the rules, apply.ts for the guarantees). Changes that raced
 * other writers are retried by up to two more cycles. A reset tree (no state, or an empty or
 * missing tree with a state listing files) is restored from the workspace, nothing deleted. A
 * plan deleting more than `maxDeleteShare` of the known files stops before doing anything
 * (`stoppedReason: 'mass_delete'`) unless `force`. Ignore rules that came from the workspace
 * apply only once accepted (`acceptIgnore`); until then `notices` says so (ignore-consent.ts).
 * Files missing from a tree that looks restored (`restored`, all mtimes new, or gitignored) are
 * brought back, not deleted from the workspace, and reported in `notices` (restore.ts).
 * INVALID_INPUT for bad options; NOT_FOUND for
 * an unknown workspace.
 */
export async function syncOnce(options: SyncOptions): Promise<SyncReport> {
  const mode = checkOptions(options);
  const clock = options.clock ?? Date.now;
  const started = clock();
  const { satchel, workspace, tree } = options;
  // A mark that held for a tree or workspace that moved hands its walk and head to the first
  // pass, which lets go of them (a walk of 100,000 files is 100,000 entries).
  let early = await checkInStep(tree, workspace, () => satchel.getWorkspace(workspace), options);
  if (early?.inStep) {
    const report = await inStepReport(early, tree);
    return { workspace, mode, ...report, durationMs: Math.max(0, clock() - started) };
  }
  const marked = early !== null;
  const state = await SyncState.load(tree, workspace);
  const rules = await acceptedIgnoreRules(tree, state, {
    ...(options.exclude === undefined ? {} : { exclude: options.exclude }),
    accept: options.acceptIgnore ?? false,
  });
  const total = emptyApplyResult();
  let first: { plan: Plan; reset: boolean; restore: Restore | null } | null = null;
  const gitignored = options.deleteRestored ? null : await loadGitignore(tree);
  let unchanged = 0;
  let cursor = state.cursor;
  let listed = new Map<string, RemoteFile>();
  let acted = false;
  // Held paths of every pass: a folder that became a link during a pass is held by the next.
  const held = new Set<string>();
  // Whether the listing of the last pass was the state itself (the saved position held).
  let fromState = false;
  const own: OwnWrites = { seqs: new Map(), unaccounted: false };
  let actedAtAll = false;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    // The cursor before the listing: the feed replays anything that lands during it. Asked for
    // before the scan, so that the round trip overlaps the stat walk.
    const handed = early;
    early = null;
    const head = handed?.head ?? satchel.getWorkspace(workspace);
    head.catch(() => undefined);
    // New small files wait to be hashed: those the workspace has too are hashed below, the
    // rest as they are uploaded (read once, not twice).
    const walked = handed && { listed: handed.entries };
    const scan = await scanTree(tree, rules, state, { deferNew: true, ...walked });
    cursor = (await head).seq;
    if (pass === 0 && quiet(scan, state, positionHolds(state, rules, cursor))) {
      // Neither side moved since the state matched both: every path is in step, no plan needed.
      first = { plan: inStep(state.size), reset: false, restore: null };
      total.skipped.push(...scan.skipped);
      unchanged = state.size;
      fromState = true;
      break;
    }
    // The workspace has not moved since the state matched it: the state is its listing.
    const redacted: string[] = [];
    const saved = settledListing(state, rules, cursor);
    fromState = saved !== null;
    const remote = saved ?? (await listRemote(satchel, workspace, rules, redacted));
    listed = remote;
    await hashListed(scan, remote, tree);
    const reset = isReset({
      stateFound: state.found,
      knownFiles: state.size,
      treeExists: scan.treeExists,
      treeFiles: scan.local.size,
    });
    const restore =
      options.deleteRestored || reset
        ? null
        : detectRestore({
            base: state.files(),
            local: scan.local,
            restored: options.restored ?? false,
            gitignored,
          });
    const planned = plan({
      mode,
      local: scan.local,
      remote,
      base: withoutRestored(state.files(), restore),
      reset: pass === 0 ? reset : false,
      links: scan.links,
      unread: scan.unread,
      maxDeleteShare: options.maxDeleteShare ?? DEFAULT_MAX_DELETE_SHARE,
      force: options.force ?? false,
    });
    if (first === null) {
      first = { plan: planned, reset, restore };
      total.skipped.push(...scan.skipped);
      total.skipped.push(...planned.kept.map((path) => ({ path, reason: 'kept_local' as const })));
      for (const path of redacted) {
        const detail = 'an owner redacted its content: there is nothing to download';
        total.skipped.push({ path, reason: 'redacted', detail });
      }
    }
    for (const skip of planned.held) {
      if (!held.has(skip.path)) total.skipped.push(skip);
      held.add(skip.path);
    }
    unchanged = planned.unchanged;
    if (planned.stopped) break;
    acted = planned.actions.length > 0;
    actedAtAll ||= acted;
    const hashes = new Set([...remote.values()].map((r) => r.hash));
    const part = await applyCycle(
      options,
      state,
      { local: scan.local, remote, plan: planned },
      hashes,
      own,
    );
    merge(total, part);
    if (part.retry === 0) break;
  }
  const stopped = first?.plan.stopped ?? null;
  // A cycle that found the saved position and did nothing keeps it: the state is unchanged.
  const settled = stopped
    ? null
    : fromState && !actedAtAll && state.settled
      ? state.settled
      : await settle(satchel, workspace, state, rules, listed, cursor, acted, own);
  // A cycle that changed nothing writes no state, no fsync: only a mark, where none held.
  const idle =
    state.found &&
    first?.plan.actions.length === 0 &&
    cursor === state.cursor &&
    settled?.seq === state.settled?.seq &&
    settled?.rules === state.settled?.rules;
  if (!stopped && !idle) {
    await state.checkpoint(settled?.seq ?? cursor, clock(), settled ?? undefined);
  } else if (!marked && settled) await state.markInStep(settled);
  return {
    workspace,
    mode,
    reset: first?.reset ?? false,
    ...total,
    unchanged,
    notices: [
      ...(await ignoreNotices(tree, rules)),
      ...(first?.restore ? [restoreNotice(first.restore)] : []),
    ],
    stoppedReason: stopped,
    plannedDeletes: first?.plan.deletes ?? 0,
    knownFiles: first?.plan.known ?? 0,
    cursor,
    durationMs: Math.max(0, clock() - started),
  };
}

/**
 * A cycle over `paths` only (workspace paths), for watch mode: each is stat'ed in the tree and
 * in the workspace, planned against the state and applied; the journal is flushed, not
 * checkpointed. Same guarantees and guard as `syncOnce`, never a reset. `rules` are the ones the
 * watch applies; when `paths` hold `/.satchelignore`, a changed file is reported in `notices`.
 */
export async function syncPaths(
  options: SyncOptions,
  state: SyncState,
  rules: IgnoreRules,
  paths: ReadonlySet<string>,
): Promise<SyncReport> {
  const mode = checkOptions(options);
  const clock = options.clock ?? Date.now;
  const started = clock();
  const { satchel, workspace, tree } = options;
  const entries: TreeEntry[] = [];
  const remote = new Map<string, RemoteFile>();
  const wanted = [...paths].filter((path) => !rules.ignores(path.slice(1)));
  await eachLimit(wanted, 8, async (path) => {
    const entry = await tree.stat(path.slice(1));
    if (entry) entries.push(entry);
    try {
      const info = await satchel.stat(workspace, path);
      if (info.type === 'file' && info.hash !== null) {
        remote.set(path, { path, seq: info.seq, hash: info.hash, size: info.size });
      }
    } catch (error) {
      if (!isSatchelError(error, 'NOT_FOUND')) throw error;
    }
  });
  const { local, skipped, links, unread } = await classify(entries, tree, rules, state);
  const planned = plan({
    mode,
    local,
    remote,
    base: state.files(),
    reset: false,
    paths: wanted,
    links,
    unread,
    maxDeleteShare: options.maxDeleteShare ?? DEFAULT_MAX_DELETE_SHARE,
    force: options.force ?? false,
  });
  const result = emptyApplyResult();
  if (!planned.stopped) {
    const hashes = new Set([...remote.values()].map((r) => r.hash));
    merge(result, await applyCycle(options, state, { local, remote, plan: planned }, hashes));
  }
  result.skipped.unshift(...skipped, ...planned.held);
  return {
    workspace,
    mode,
    reset: false,
    ...result,
    unchanged: planned.unchanged,
    notices: paths.has(`/${IGNORE_FILE}`) ? await ignoreNotices(tree, rules) : [],
    stoppedReason: planned.stopped,
    plannedDeletes: planned.deletes,
    knownFiles: planned.known,
    cursor: state.cursor,
    durationMs: Math.max(0, clock() - started),
  };
}

/** What the tree's state says: its workspace, last sync, file count, cursor and conflicts kept. */
export async function syncStatus(tree: SyncTree): Promise<SyncStatus> {
  const data = await SyncState.peek(tree);
  if (data === null)
    return { workspace: null, lastSyncAt: null, files: 0, cursor: 0, conflicts: [] };
  return {
    workspace: data.workspace,
    lastSyncAt: data.lastSyncAt,
    files: Object.keys(data.files).length,
    cursor: data.cursor,
    conflicts: data.conflicts,
  };
}
