/**
 * Which `.satchelignore` a cycle applies (issue 20, item 15). The file is synced like any
 * other, so any editor of the workspace can change it; if sync obeyed it at once, an editor
 * could stop a member's uploads (`*`) or, by deleting it, make them upload what their rules kept
 * local (`.env`). So the rules that apply are the ones the local user accepted:
 *
 * - the tree's file when the local user changed, created or deleted it since the last sync
 *   (it differs from the synced state): their own edit is their consent;
 * - the tree's file when the caller accepts it (`acceptIgnore`, `satchel sync --accept-ignore`):
 *   what is accepted is what the tree holds now, the file the user could read;
 * - otherwise the text accepted last, kept in the state folder (`accepted-ignore.json`). A file
 *   sync downloaded (new, changed or deleted in the workspace) is written into the tree but not
 *   applied, and every cycle reports it (`notices`, `ignore_rules_changed`) until accepted.
 *
 * A fresh tree has accepted nothing: only the built-in rules apply. A state written before this
 * existed has no record: the tree's file is taken as accepted once (what it applied until then).
 */
import { createHash } from 'node:crypto';
import type { SyncNotice } from '../schemas/sync.js';
import { IGNORE_FILE, type IgnoreRules, ignoreRules, readTreeFile } from './ignore.js';
import type { SyncTree } from './tree.js';

export const ACCEPTED_IGNORE_FILE = 'accepted-ignore.json';
const IGNORE_PATH = `/${IGNORE_FILE}`;

/** What the rules depend on in a tree's state (SyncState, or the in-step mark's copy). */
export interface IgnoreBasis {
  readonly workspace: string;
  /** Whether the tree had a state for the workspace. */
  readonly found: boolean;
  /** The hash of the `.satchelignore` both sides last agreed on; null for none. */
  readonly ignoreHash: string | null;
}

interface AcceptedRecord {
  readonly workspace: string;
  readonly text: string;
}

async function readAccepted(tree: SyncTree, workspace: string): Promise<string | null> {
  const raw = await tree.readState(ACCEPTED_IGNORE_FILE);
  if (raw === null) return null;
  try {
    const record = JSON.parse(raw) as Partial<AcceptedRecord> | null;
    if (record?.workspace !== workspace || typeof record.text !== 'string') return null;
    return record.text;
  } catch {
    // Unreadable: as if nothing was accepted (the safe side: only the built-in rules).
    return '';
  }
}

/**
 * The rules a cycle of `tree` with `workspace` applies (see above), recording a new acceptance
 * durably in the state folder before it returns. `exclude`: more patterns that always apply.
 */
export async function acceptedIgnoreRules(
  tree: SyncTree,
  state: IgnoreBasis,
  options: { readonly exclude?: readonly string[]; readonly accept?: boolean } = {},
): Promise<IgnoreRules> {
  const bytes = await readTreeFile(tree, IGNORE_FILE);
  const current = bytes?.toString('utf8') ?? '';
  const hash = bytes === null ? null : createHash('sha256').update(bytes).digest('hex');
  const recorded = await readAccepted(tree, state.workspace);
  const changedHere = hash !== state.ignoreHash;
  let accepted: string;
  if (options.accept === true || changedHere) accepted = current;
  else if (recorded !== null) accepted = recorded;
  else accepted = state.found ? current : '';
  if (accepted !== recorded) {
    const record: AcceptedRecord = { workspace: state.workspace, text: accepted };
    await tree.writeState(ACCEPTED_IGNORE_FILE, JSON.stringify(record));
  }
  return ignoreRules(accepted, options.exclude);
}

/**
 * A notice when the tree's `.satchelignore` (after the cycle) is not the text `rules` apply:
 * the workspace changed or deleted it and the local user has not accepted that yet.
 */
export async function ignoreNotices(tree: SyncTree, rules: IgnoreRules): Promise<SyncNotice[]> {
  const bytes = await readTreeFile(tree, IGNORE_FILE);
  const current = bytes?.toString('utf8') ?? '';
  if (current === rules.text) return [];
  const what = bytes === null ? 'was deleted in the workspace' : 'was changed in the workspace';
  return [
    {
      path: IGNORE_PATH,
      reason: 'ignore_rules_changed',
      detail:
        `${what}; sync still applies the rules you accepted. Read it, then run ` +
        'satchel sync --accept-ignore to apply it',
    },
  ];
}
