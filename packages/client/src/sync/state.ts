/**
 * The last synced state of a tree, kept inside it (`.satchel-sync/`): for each workspace path the
 * seq, hash, size and mtime both sides agreed on, the workspace cursor, and the conflicts kept.
 *
 * On disk: `state.json`, replaced atomically (temp + fsync + rename) at the end of a cycle, plus
 * `journal.jsonl`, one line per applied action, appended as the cycle goes and folded into
 * state.json at the next checkpoint. A crash mid-cycle loses at most the last unflushed lines;
 * the next cycle sees those paths as the same change on both sides and converges.
 */
import type { SyncConflict } from '../schemas/sync.js';
import { IGNORE_FILE } from './ignore.js';
import { markInStep } from './in-step.js';
import { JOURNAL_FILE, STATE_FILE, type SyncTree } from './tree.js';

const FORMAT = 1;
/** Journal lines buffered before they are appended. */
const FLUSH_EVERY = 64;
/** Characters of state.json written at a time (`text`). */
const PIECE = 1 << 16;
/** Conflicts remembered for `sync status` (oldest dropped first). */
const MAX_CONFLICTS = 1000;

export interface FileState {
  readonly seq: number;
  readonly hash: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** The tree's inode number when it has one; absent in states written before it was kept. */
  readonly ino?: number;
}

interface StateData {
  format: number;
  workspace: string;
  cursor: number;
  lastSyncAt: string | null;
  files: Record<string, FileState>;
  conflicts: SyncConflict[];
  /** Where the workspace held exactly `files` (settled.ts); absent once anything changed. */
  settled?: SettledPosition;
}

/** The workspace's seq at which its files (under rules `rules`) were exactly the state's. */
export interface SettledPosition {
  readonly seq: number;
  /** The ignore rules' key (IgnoreRules.key): other rules would list other files. */
  readonly rules: string;
}

type JournalLine =
  | { op: 'set'; path: string; file: FileState }
  | { op: 'del'; path: string }
  | { op: 'conflict'; conflict: SyncConflict };

function parseData(text: string | null): StateData | null {
  if (text === null) return null;
  try {
    const data = JSON.parse(text) as StateData;
    if (data?.format !== FORMAT || typeof data.files !== 'object') return null;
    return data;
  } catch {
    return null;
  }
}

/** The state of one tree, in memory, with its journal. */
export class SyncState {
  private pending: string[] = [];
  private flushing: Promise<void> = Promise.resolve();
  /** `data.files` as a map, the one copy kept up to date (written back at the checkpoint). */
  private readonly map: Map<string, FileState>;

  private constructor(
    private readonly tree: SyncTree,
    private data: StateData,
    /** False when no usable state was found for this workspace: a fresh or reset tree. */
    readonly found: boolean,
  ) {
    // Key by key: Object.entries would first build a [key, value] pair per file (at 100,000
    // files, ~170 ms against ~60).
    this.map = new Map();
    const { files } = data;
    for (const path in files) this.map.set(path, files[path] as FileState);
    data.files = {};
  }

  /** The state of `tree` for `workspace`; a fresh one when missing, unreadable or of another workspace. */
  static async load(tree: SyncTree, workspace: string): Promise<SyncState> {
    const data = parseData(await tree.readState(STATE_FILE));
    const fresh: StateData = {
      format: FORMAT,
      workspace,
      cursor: 0,
      lastSyncAt: null,
      files: {},
      conflicts: [],
    };
    if (data === null || data.workspace !== workspace) return new SyncState(tree, fresh, false);
    const state = new SyncState(tree, data, true);
    for (const line of ((await tree.readState(JOURNAL_FILE)) ?? '').split('\n')) {
      if (line.trim() === '') continue;
      try {
        state.apply(JSON.parse(line) as JournalLine);
      } catch {
        // A torn last line from a crash: everything before it is applied.
      }
    }
    return state;
  }

  /** What `sync status` shows, without opening a workspace. */
  static async peek(tree: SyncTree): Promise<StateData | null> {
    const data = parseData(await tree.readState(STATE_FILE));
    if (data === null) return null;
    const state = new SyncState(tree, data, true);
    for (const line of ((await tree.readState(JOURNAL_FILE)) ?? '').split('\n')) {
      try {
        if (line.trim() !== '') state.apply(JSON.parse(line) as JournalLine);
      } catch {
        // torn line
      }
    }
    return state.snapshot();
  }

  /** The data as state.json holds it. */
  private snapshot(): StateData {
    return { ...this.data, files: Object.fromEntries(this.map) };
  }

  /**
   * The snapshot's JSON in pieces of about PIECE characters, the files last. At 100,000 files
   * the state is ~16 MB: built as one object, one string and one buffer, it was the peak of a
   * push's memory (~60 MiB above the rest of the push).
   */
  private *text(): Generator<string> {
    const head = JSON.stringify({ ...this.data, files: undefined });
    let piece = `${head.slice(0, -1)},"files":{`;
    let first = true;
    for (const [path, file] of this.map) {
      piece += `${first ? '' : ','}${JSON.stringify(path)}:${JSON.stringify(file)}`;
      first = false;
      if (piece.length >= PIECE) {
        yield piece;
        piece = '';
      }
    }
    yield `${piece}}}`;
  }

  private apply(line: JournalLine): void {
    // The files changed since the position was taken: it no longer says anything.
    if (line.op !== 'conflict') delete this.data.settled;
    if (line.op === 'set') this.map.set(line.path, line.file);
    else if (line.op === 'del') this.map.delete(line.path);
    else if (!this.data.conflicts.some((c) => c.keptAs === line.conflict.keptAs)) {
      this.data.conflicts.push(line.conflict);
      if (this.data.conflicts.length > MAX_CONFLICTS) this.data.conflicts.shift();
    }
  }

  get workspace(): string {
    return this.data.workspace;
  }
  get cursor(): number {
    return this.data.cursor;
  }
  get lastSyncAt(): string | null {
    return this.data.lastSyncAt;
  }
  get conflicts(): readonly SyncConflict[] {
    return this.data.conflicts;
  }
  get settled(): SettledPosition | null {
    return this.data.settled ?? null;
  }
  get size(): number {
    return this.map.size;
  }
  /** The hash of the `.satchelignore` both sides last agreed on (ignore-consent.ts). */
  get ignoreHash(): string | null {
    return this.map.get(`/${IGNORE_FILE}`)?.hash ?? null;
  }

  get(path: string): FileState | undefined {
    return this.map.get(path);
  }

  /** Every recorded file, live: it changes as the state does (no copy of 10,000 entries). */
  files(): ReadonlyMap<string, FileState> {
    return this.map;
  }

  /** Records that both sides hold `file` at `path`. */
  set(path: string, file: FileState): Promise<void> {
    return this.log({ op: 'set', path, file });
  }

  /** Records that neither side holds `path`. */
  delete(path: string): Promise<void> {
    return this.log({ op: 'del', path });
  }

  addConflict(conflict: SyncConflict): Promise<void> {
    return this.log({ op: 'conflict', conflict });
  }

  private log(line: JournalLine): Promise<void> {
    this.apply(line);
    this.pending.push(`${JSON.stringify(line)}\n`);
    return this.pending.length >= FLUSH_EVERY ? this.flush() : Promise.resolve();
  }

  /** Appends the buffered journal lines. */
  flush(): Promise<void> {
    if (this.pending.length === 0) return this.flushing;
    const text = this.pending.join('');
    this.pending = [];
    this.flushing = this.flushing.then(() => this.tree.appendState(JOURNAL_FILE, text));
    return this.flushing;
  }

  /**
   * Folds everything into state.json (atomic, durable) and empties the journal; `settled` is
   * saved with it when given (the caller checked it against the workspace: settled.ts), and the
   * in-step mark of that position written after it (in-step.ts).
   */
  async checkpoint(cursor: number, now: number, settled?: SettledPosition): Promise<void> {
    await this.flush();
    this.data.cursor = Math.max(this.data.cursor, cursor);
    this.data.lastSyncAt = new Date(now).toISOString();
    if (settled === undefined) delete this.data.settled;
    else this.data.settled = settled;
    await this.tree.writeState(STATE_FILE, this.text());
    // A crash before this line replays the journal onto the new state: every line is idempotent.
    await this.tree.writeState(JOURNAL_FILE, '');
    if (settled !== undefined) await this.markInStep(settled);
  }

  /** Writes the in-step mark of `settled`, a position the state file holds (in-step.ts). */
  markInStep(settled: SettledPosition): Promise<void> {
    return markInStep(this.tree, this.map, settled, this);
  }

  /** Moves the cursor on without a checkpoint (the watch's feed position). */
  setCursor(cursor: number): void {
    this.data.cursor = Math.max(this.data.cursor, cursor);
  }
}
