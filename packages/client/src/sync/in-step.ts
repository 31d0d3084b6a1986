/**
 * The in-step mark: a cycle with nothing to do, told without reading the state (issue 19, item
 * 3: a restarted sandbox whose files are intact resumes at once). A checkpoint that saves a
 * settled position (settled.ts) also writes `in-step.json`: the workspace's seq and rules of
 * that position, and a digest of the files the state records (path, size, mtime, inode). When
 * the workspace is still at that seq, the rules are the same and the tree's files digest the
 * same, both sides are as they were when they were last in step: the cycle is over after a stat
 * walk, without parsing the state, building its map or classifying a file (sync.ts `quiet`
 * decides the same after all of that).
 *
 * The mark names the state file it goes with by its size, mtime and inode (a checkpoint
 * replaces the file, so a new one has a new inode), and holds only while the journal is empty:
 * a later checkpoint, or a change recorded since, voids it without a write. Were a new state
 * file to look the same (an inode reused within the file system's timestamp tick, at the same
 * size), the mark would still only claim what was true: that the workspace at `seq` and the
 * tree's files as digested were in step; the seq never comes back once the workspace moves.
 */
import { createHash } from 'node:crypto';
import type { SyncReport } from '../schemas/sync.js';
import { emptyApplyResult } from './apply-context.js';
import type { IgnoreRules } from './ignore.js';
import { acceptedIgnoreRules, type IgnoreBasis, ignoreNotices } from './ignore-consent.js';
import { JOURNAL_FILE, STATE_DIR, STATE_FILE, type SyncTree, type TreeEntry } from './tree.js';

const IN_STEP_FILE = 'in-step.json';
const FORMAT = 1;

interface InStepMark extends Omit<IgnoreBasis, 'found'> {
  readonly format: number;
  /** The state.json the mark goes with: `size:mtimeMs:ino`. */
  readonly state: string;
  /** The settled position: the workspace's seq and the rules' key. */
  readonly seq: number;
  readonly rules: string;
  /** How many files, and their digest (`filesDigest`). */
  readonly files: number;
  readonly digest: string;
}

interface Recorded {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino?: number;
}

const STATE_PATH = `${STATE_DIR}/${STATE_FILE}`;

/** The identity of the tree's state file; null when there is none, or no inode to tell by. */
async function stateFile(tree: SyncTree): Promise<string | null> {
  const st = await tree.stat(STATE_PATH);
  return st?.type !== 'file' || st.ino === undefined ? null : `${st.size}:${st.mtimeMs}:${st.ino}`;
}

/**
 * SHA-256 of `files` (workspace path and stats) in path order; null when one has no inode, as
 * files of a state written before inodes were kept: their stats cannot tell a replaced file.
 */
function filesDigest(files: ReadonlyMap<string, Recorded>): string | null {
  // The paths alone are sorted (UTF-16 order, as `<`): no [path, file] pair per file.
  const paths = [...files.keys()].sort();
  const hash = createHash('sha256');
  let text = '';
  for (const path of paths) {
    const { size, mtimeMs, ino } = files.get(path) as Recorded;
    if (ino === undefined) return null;
    // No workspace path holds a NUL.
    text += `${path}\0${size}\0${mtimeMs}\0${ino}\n`;
    if (text.length >= 1 << 16) {
      hash.update(text);
      text = '';
    }
  }
  return hash.update(text).digest('hex');
}

/**
 * Writes the mark of a checkpoint, after its state.json: `files` are the state's files, `seq`
 * and `rules` the settled position saved with it. Nothing when a file or the state file has no
 * inode, or there is no file: the next cycle plans as before.
 */
export async function markInStep(
  tree: SyncTree,
  files: ReadonlyMap<string, Recorded>,
  position: { readonly seq: number; readonly rules: string },
  basis: Omit<IgnoreBasis, 'found'>,
): Promise<void> {
  const digest = files.size === 0 ? null : filesDigest(files);
  const state = digest === null ? null : await stateFile(tree);
  if (digest === null || state === null) return;
  const { workspace, ignoreHash } = basis;
  const mark: InStepMark = {
    format: FORMAT,
    state,
    ...position,
    files: files.size,
    digest,
    workspace,
    ignoreHash,
  };
  await tree.writeState(IN_STEP_FILE, JSON.stringify(mark));
}

async function readMark(tree: SyncTree, workspace: string): Promise<InStepMark | null> {
  const raw = await tree.readState(IN_STEP_FILE);
  if (raw === null || raw === '') return null;
  let mark: InStepMark;
  try {
    mark = JSON.parse(raw) as InStepMark;
  } catch {
    return null;
  }
  if (mark?.format !== FORMAT || mark.workspace !== workspace) return null;
  if (((await tree.readState(JOURNAL_FILE)) ?? '') !== '') return null;
  return (await stateFile(tree)) === mark.state ? mark : null;
}

/** What `checkInStep` found: the tree's files for the rest of the cycle when they are not in step. */
export type InStep =
  | {
      readonly inStep: true;
      readonly files: number;
      readonly seq: number;
      readonly rules: IgnoreRules;
    }
  | {
      readonly inStep: false;
      readonly entries: TreeEntry[];
      readonly head: Promise<{ seq: number }>;
    };

/** The report of a cycle found in step (`checkInStep`), but for what the caller knows. */
export async function inStepReport(
  found: Extract<InStep, { inStep: true }>,
  tree: SyncTree,
): Promise<Omit<SyncReport, 'workspace' | 'mode' | 'durationMs'>> {
  const { files, seq, rules } = found;
  return {
    reset: false,
    ...emptyApplyResult(),
    unchanged: files,
    notices: await ignoreNotices(tree, rules),
    stoppedReason: null,
    plannedDeletes: 0,
    knownFiles: files,
    cursor: seq,
  };
}

/**
 * Whether `tree` and `workspace` are still as the in-step mark found them; null without a
 * mark that goes with the tree's state. `head` asks for the workspace's seq (asked before the
 * walk, so the round trip overlaps it). When not in step, the walk's entries and the head are
 * handed on: the cycle's first scan uses them (the mark's rules are the state's).
 */
export async function checkInStep(
  tree: SyncTree,
  workspace: string,
  head: () => Promise<{ seq: number }>,
  options: { readonly exclude?: readonly string[]; readonly acceptIgnore?: boolean },
): Promise<InStep | null> {
  const mark = await readMark(tree, workspace);
  if (mark === null) return null;
  // The state the mark goes with is there: the next load finds it.
  const rules = await acceptedIgnoreRules(
    tree,
    { ...mark, found: true },
    {
      ...(options.exclude === undefined ? {} : { exclude: options.exclude }),
      accept: options.acceptIgnore ?? false,
    },
  );
  const asked = head();
  asked.catch(() => undefined);
  const entries = await tree.list((dir) => rules.ignores(dir, true));
  const files = new Map<string, Recorded>();
  let plain = true;
  for (const entry of entries) {
    if (!rules.trivial && rules.ignores(entry.path)) continue;
    // A link or a special file is reported by a planned cycle: not in step here.
    plain &&= entry.type === 'file';
    files.set(`/${entry.path}`, entry);
  }
  const same =
    plain &&
    rules.key === mark.rules &&
    files.size === mark.files &&
    filesDigest(files) === mark.digest &&
    (await asked).seq === mark.seq;
  return same
    ? { inStep: true, files: mark.files, seq: mark.seq, rules }
    : { inStep: false, entries, head: asked };
}
