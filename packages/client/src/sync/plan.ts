/**
 * The three-way planner: the tree now, the workspace now and the last synced state in, actions
 * out. Pure: no I/O, so every rule below is unit-tested on plain maps (plan.test.ts).
 *
 * Per path, with L = the tree's content, R = the workspace's, B = the last synced:
 * - L = R: in step (record it). Only one side differs from B: that side's change goes across.
 * - Both differ from B and from each other: a conflict in two-way-safe; a deletion never beats a
 *   modification (the modified file is kept on both sides).
 * - `push` never writes into the tree, `pull` never writes to the workspace.
 * - A reset (no state, or a state listing files while the tree is empty or missing) plans as if
 *   nothing had been synced: nothing is deleted anywhere, the workspace is restored.
 * - A plan deleting more than `maxDeleteShare` of the known files stops unless `force`.
 * - A path at or beneath a symbolic link of the tree is held: no action either way. The tree
 *   does not look through links, so such a path looks deleted there; planning it would delete
 *   it from the workspace, and downloading it would write through the link.
 */
import type { SyncMode, SyncSkipped } from '../schemas/sync.js';
import type { FileState } from './state.js';

export interface LocalFile {
  /** Workspace path ("/a/b.txt"). */
  readonly path: string;
  /** The path in the tree as found there (may differ by Unicode normalisation). */
  readonly name: string;
  readonly size: number;
  readonly mtimeMs: number;
  /**
   * SHA-256 of the content; null for a small file new to both sides (no state, not in the
   * workspace), whose content is read once, when it is uploaded, and hashed then (scan.ts).
   */
  readonly hash: string | null;
  /** The tree's inode number, where it has one (see TreeEntry). */
  readonly ino?: number;
}

/** A tree file whose content has been hashed. */
export interface HashedFile extends LocalFile {
  readonly hash: string;
}

/** `file`, known to be hashed: the scan hashes every file it compares (scan.ts, `hashListed`). */
export function hashed(file: LocalFile): HashedFile {
  if (file.hash === null) throw new Error(`${file.path} was compared before it was hashed`);
  return file as HashedFile;
}

export interface RemoteFile {
  readonly path: string;
  readonly seq: number;
  readonly hash: string;
  readonly size: number;
}

export type SyncAction =
  /** Write the tree's file to the workspace: `ifMatch` the head seq, or create only. */
  | { kind: 'upload'; path: string; local: LocalFile; ifMatch: number | null }
  /** Replace the tree's file (absent, or as scanned: `expect`) with the workspace version. */
  | { kind: 'download'; path: string; remote: RemoteFile; expect: LocalFile | null }
  | { kind: 'delete-remote'; path: string; remote: RemoteFile }
  | { kind: 'delete-local'; path: string; local: LocalFile }
  /** Both sides agree: remember it. */
  | { kind: 'record'; path: string; file: FileState }
  /** Neither side has it any more, or it is no longer tracked. */
  | { kind: 'forget'; path: string }
  | {
      kind: 'conflict';
      path: string;
      local: HashedFile;
      remote: RemoteFile;
      base: FileState | null;
    };

export interface PlanInput {
  readonly mode: SyncMode;
  readonly local: ReadonlyMap<string, LocalFile>;
  readonly remote: ReadonlyMap<string, RemoteFile>;
  readonly base: ReadonlyMap<string, FileState>;
  /** Rehydrate: plan as if nothing had been synced (see `isReset`). */
  readonly reset: boolean;
  /** Plan only these paths (a watch cycle); default: every path any side knows. */
  readonly paths?: Iterable<string>;
  /** Workspace paths where the tree has a symbolic link: everything at or beneath one is held. */
  readonly links?: ReadonlySet<string>;
  /**
   * Tree files the scan could not read and already reported (too large for the tree to move):
   * left alone on both sides, so a file that is there is never taken for a deleted one.
   */
  readonly unread?: ReadonlySet<string>;
  readonly maxDeleteShare: number;
  readonly force: boolean;
}

export interface Plan {
  readonly actions: SyncAction[];
  /** Paths in step that needed no action. */
  readonly unchanged: number;
  /** Paths left alone on purpose (pull keeps files the workspace never had). */
  readonly kept: string[];
  /** Paths that would have changed but are at or beneath a link of the tree (see `links`). */
  readonly held: SyncSkipped[];
  readonly deletes: number;
  readonly known: number;
  readonly stopped: 'mass_delete' | null;
}

export const DEFAULT_MAX_DELETE_SHARE = 0.5;

/**
 * A fresh or reset tree: no usable state, or a state that lists files while the tree is missing
 * or holds none. Such a tree is restored from the workspace and never propagates deletions.
 */
export function isReset(input: {
  stateFound: boolean;
  knownFiles: number;
  treeExists: boolean;
  treeFiles: number;
}): boolean {
  if (!input.stateFound) return true;
  return input.knownFiles > 0 && (!input.treeExists || input.treeFiles === 0);
}

const inStep = (l: LocalFile, r: RemoteFile): FileState => ({
  seq: r.seq,
  hash: r.hash,
  size: r.size,
  mtimeMs: l.mtimeMs,
  ...(l.ino === undefined ? {} : { ino: l.ino }),
});

function samePair(b: FileState | undefined, l: LocalFile, r: RemoteFile): boolean {
  return (
    b?.seq === r.seq &&
    b.hash === r.hash &&
    b.mtimeMs === l.mtimeMs &&
    b.size === l.size &&
    b.ino === l.ino
  );
}

/** The action for one path (null: nothing to do), and whether it was left alone on purpose. */
function decide(
  mode: SyncMode,
  path: string,
  l: LocalFile | undefined,
  r: RemoteFile | undefined,
  b: FileState | undefined,
): SyncAction | 'kept' | null {
  // A file is left unhashed only when neither side has anything to compare it with.
  if (l && (r || b)) hashed(l);
  if (l?.hash === r?.hash) {
    if (l && r) return samePair(b, l, r) ? null : { kind: 'record', path, file: inStep(l, r) };
    return b ? { kind: 'forget', path } : null;
  }
  const localChanged = l?.hash !== b?.hash;
  const remoteChanged = r?.hash !== b?.hash;
  const upload = (local: LocalFile): SyncAction => ({
    kind: 'upload',
    path,
    local,
    ifMatch: r?.seq ?? null,
  });
  const download = (remote: RemoteFile): SyncAction => ({
    kind: 'download',
    path,
    remote,
    expect: l ?? null,
  });

  if (!remoteChanged) {
    // Only the tree changed (l differs from b = r).
    if (mode === 'pull') return r ? download(r) : 'kept';
    if (l) return upload(l);
    return r ? { kind: 'delete-remote', path, remote: r } : null;
  }
  if (!localChanged) {
    // Only the workspace changed.
    if (mode === 'push') return l ? upload(l) : null;
    if (r) return download(r);
    return l ? { kind: 'delete-local', path, local: l } : null;
  }
  // Both changed, differently. A modification always beats a deletion.
  if (!l) return r && mode !== 'push' ? download(r) : { kind: 'forget', path };
  if (!r) return mode === 'pull' ? (b ? { kind: 'forget', path } : 'kept') : upload(l);
  if (mode === 'push') return upload(l);
  if (mode === 'pull') return download(r);
  return { kind: 'conflict', path, local: hashed(l), remote: r, base: b ?? null };
}

/** The link of `links` that `path` is, or lies beneath; null when none. */
function linkAbove(links: ReadonlySet<string>, path: string): string | null {
  if (links.size === 0) return null;
  for (let end = path.indexOf('/', 1); end !== -1; end = path.indexOf('/', end + 1)) {
    if (links.has(path.slice(0, end))) return path.slice(0, end);
  }
  return links.has(path) ? path : null;
}

/** The report of a path held because the tree has the symbolic link `link` at or above it. */
function heldSkip(path: string, link: string): SyncSkipped {
  return {
    path,
    reason: 'symlink',
    detail:
      link === path
        ? 'the tree has a symbolic link here: left alone on both sides'
        : `beneath ${link}, a symbolic link in the tree: left alone on both sides`,
  };
}

export function plan(input: PlanInput): Plan {
  const base = input.reset ? new Map<string, FileState>() : input.base;
  const paths = new Set(
    input.paths ?? [...input.local.keys(), ...input.remote.keys(), ...base.keys()],
  );
  const actions: SyncAction[] = [];
  const kept: string[] = [];
  const held: SyncSkipped[] = [];
  const links = input.links ?? new Set<string>();
  let unchanged = 0;
  let deletes = 0;
  for (const path of [...paths].sort()) {
    const action = decide(
      input.mode,
      path,
      input.local.get(path),
      input.remote.get(path),
      base.get(path),
    );
    const link = action === null ? null : linkAbove(links, path);
    if (action === null) unchanged++;
    else if (input.unread?.has(path)) continue;
    else if (link !== null) held.push(heldSkip(path, link));
    else if (action === 'kept') kept.push(path);
    else {
      if (action.kind === 'delete-local' || action.kind === 'delete-remote') deletes++;
      actions.push(action);
    }
  }
  const known = input.base.size;
  const stopped =
    !input.force && deletes > Math.max(1, input.maxDeleteShare * known) ? 'mass_delete' : null;
  return {
    actions: stopped ? [] : actions,
    unchanged,
    kept,
    held,
    deletes,
    known,
    stopped,
  };
}

const LABEL_UNSAFE = /[^A-Za-z0-9_-]+/g;

/** `20261202T173000Z`: the compact UTC time in conflict names. */
export function compactTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Where the tree's side of a conflict is kept: `name.conflict-<label>-<time>.ext` beside the
 * path (`/d/report.conflict-sbx1-20261202T173000Z.md`; a dotfile or a name without extension
 * gets the suffix at the end). `taken` says whether a candidate exists already.
 */
export function conflictPath(
  path: string,
  label: string,
  now: number,
  taken: (candidate: string) => boolean = () => false,
): string {
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash + 1);
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const tag = `conflict-${label.replace(LABEL_UNSAFE, '-').slice(0, 40) || 'local'}-${compactTime(now)}`;
  for (let n = 1; ; n++) {
    const candidate = `${dir}${stem}.${tag}${n === 1 ? '' : `-${n}`}${ext}`;
    if (!taken(candidate)) return candidate;
  }
}
