/**
 * The audit log's format: entry hashing (RFC 8785 canonical JSON), appending to the chain inside
 * a transaction, the checkpoint file, and verification that names the first broken entry. See
 * audit-log.ts for the format and what it proves.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SatchelError } from '@satchel/client/errors.js';
import canonicalize from 'canonicalize';
import type { MetadataTx } from '../store/metadata/metadata-store.js';
import type { AuditRecord } from '../store/metadata/records.js';

/** One call as the log records it: the entry without its place in the chain. */
export type AuditInput = Omit<AuditRecord, 'idx' | 'prevHash' | 'hash'>;

/** An entry of the chain, as stored. */
export type AuditEntry = AuditRecord;

/**
 * Result of `verify()`. `entries` counts the entries read. On success `checkpoint` says whether
 * the tail could be checked: `missing` means no checkpoint file exists, so a cut-off tail would
 * go unnoticed (deleting the file is no harder than rewriting it, so this is not a failure; a
 * crash right after the first commit leaves it missing too). On failure `index` is the first bad
 * entry; 0 means the checkpoint file itself is unreadable.
 */
export type AuditVerification =
  | {
      ok: true;
      entries: number;
      head: { idx: number; hash: string } | null;
      checkpoint: 'matched' | 'missing' | 'disabled';
    }
  | { ok: false; entries: number; index: number; reason: string };

export const GENESIS_HASH = '0'.repeat(64);

export function canonical(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new SatchelError('INTERNAL', 'value has no canonical JSON form');
  return text;
}

const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE_TEST =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** JCS of a string: JSON.stringify's form (RFC 8785 adopts it); JCS has no lone surrogates. */
function jcsString(value: string | null): string {
  // The cheap test first: surrogates of any kind are rare, the precise test uses a lookbehind.
  if (typeof value === 'string' && SURROGATE.test(value) && LONE_SURROGATE_TEST.test(value)) {
    throw new SatchelError('INTERNAL', 'a lone surrogate has no canonical JSON form');
  }
  return JSON.stringify(value);
}

/** JCS of a number: JSON.stringify's form; NaN and Infinity have none (they would hash as null). */
function jcsNumber(value: number | null): string {
  if (value !== null && !Number.isFinite(value)) {
    throw new SatchelError('INTERNAL', `${value} has no canonical JSON form`);
  }
  return JSON.stringify(value);
}

/** The JCS text of the fields every form of entry hashes, up to `"workspace"` (keys in JCS order). */
function jcsFields(entry: AuditInput & { idx: number }): string {
  return (
    `{"action":${jcsString(entry.action)},"actor":${jcsString(entry.actor)}` +
    `,"code":${jcsString(entry.code)},"idx":${jcsNumber(entry.idx)}` +
    `,"outcome":${jcsString(entry.outcome)},"path":${jcsString(entry.path)}` +
    `,"seq":${jcsNumber(entry.seq)},"session":${jcsString(entry.session)}` +
    `,"time":${jcsNumber(entry.time)},"workspace":${jcsString(entry.workspace)}`
  );
}

/**
 * hex(SHA-256(prevHash ‖ JCS of the entry with its idx and workspaceId)); see the module header.
 * The JCS text of this fixed shape is written out (keys in JCS order), twice as fast as a generic
 * canonicaliser on the read path; tests pin it to `canonicalize`. Throws INTERNAL for a value JCS
 * cannot hold.
 */
export function entryHash(prevHash: string, entry: AuditInput & { idx: number }): string {
  const body = `${jcsFields(entry)},"workspaceId":${jcsString(entry.workspaceId)}}`;
  return createHash('sha256').update(prevHash).update(body).digest('hex');
}

/**
 * The hash of an entry written before workspace ids were recorded (migration 0006): the same
 * JCS without the `workspaceId` key. Such an entry verifies only while its stored id is null.
 */
export function legacyEntryHash(prevHash: string, entry: AuditInput & { idx: number }): string {
  return createHash('sha256')
    .update(prevHash)
    .update(`${jcsFields(entry)}}`)
    .digest('hex');
}

const OUTCOMES: ReadonlySet<string> = new Set(['ok', 'refused', 'error']);
/** Valid paths (≤ 4096 bytes) always fit; longer strings come from refused junk input. */
const MAX_TEXT = 4096;
const LONE_SURROGATE = new RegExp(LONE_SURROGATE_TEST.source, 'g');

/**
 * Stored strings must hash the same after a round trip through UTF-8, and canonical JSON refuses
 * lone surrogates; a refused call may carry any string, so replace them rather than fail.
 */
function text(value: string): string {
  const cut = value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT - 1)}…` : value;
  return cut.replace(LONE_SURROGATE, '\uFFFD');
}

const optionalText = (value: string | null): string | null => (value === null ? null : text(value));

/** The input as it will be stored; INTERNAL if a caller in core built it wrongly. */
export function normalise(input: AuditInput): AuditInput {
  const { time, seq, outcome } = input;
  if (
    !Number.isSafeInteger(time) ||
    (seq !== null && !Number.isSafeInteger(seq)) ||
    !OUTCOMES.has(outcome) ||
    input.actor === '' ||
    input.action === ''
  ) {
    throw new SatchelError('INTERNAL', `malformed audit entry: ${JSON.stringify(input)}`);
  }
  return {
    time,
    actor: text(input.actor),
    session: optionalText(input.session),
    action: text(input.action),
    workspace: optionalText(input.workspace),
    workspaceId: input.workspaceId,
    path: optionalText(input.path),
    seq,
    outcome,
    code: optionalText(input.code),
  };
}

/** Appends `inputs` after the head as read in `tx`, so every writer of the database extends one chain. */
export async function appendAll(
  tx: MetadataTx,
  inputs: readonly AuditInput[],
): Promise<AuditEntry[]> {
  const head = await tx.auditHead();
  if (head && !Number.isSafeInteger(head.idx)) {
    throw new SatchelError('INTEGRITY', `audit log head idx ${head.idx} is not an integer`);
  }
  let idx = head?.idx ?? 0;
  let prevHash = head?.hash ?? GENESIS_HASH;
  // Rows are built once and hashed in place: this loop is most of what a read's entry costs.
  const rows = inputs.map(
    ({ time, actor, session, action, workspace, workspaceId, path, seq, outcome, code }) => {
      idx += 1;
      const row: AuditEntry = {
        idx,
        time,
        actor,
        session,
        action,
        workspace,
        workspaceId,
        path,
        seq,
        outcome,
        code,
        prevHash,
        hash: '',
      };
      row.hash = entryHash(prevHash, row);
      prevHash = row.hash;
      return row;
    },
  );
  // The primary key on idx makes a racing writer that read the same head fail, never fork.
  await tx.audit.insert(rows);
  return rows;
}

export type Checkpoint =
  | { state: 'missing' }
  | { state: 'present'; idx: number; hash: string }
  | { state: 'invalid'; reason: string };

export async function readCheckpoint(file: string): Promise<Checkpoint> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'invalid', reason: String(error) };
  }
  try {
    const value = JSON.parse(raw) as { idx?: unknown; hash?: unknown };
    const { idx, hash } = value;
    if (typeof idx === 'number' && Number.isSafeInteger(idx) && idx >= 1) {
      if (typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash)) {
        return { state: 'present', idx, hash };
      }
    }
  } catch {
    // Reported below like any other malformed content.
  }
  return { state: 'invalid', reason: 'not {"idx": <integer ≥ 1>, "hash": <64 hex digits>}' };
}

export interface Link {
  idx: number;
  hash: string;
}

/**
 * Whether the entry's hash covers its content, in the current form or, for an entry with no
 * workspace id, the form before ids (the two hash different texts, so a stored hash matches one
 * at most: an id added to an old entry, or removed from a new one, shows as a modification).
 */
function hashMatches(row: AuditEntry, idx = row.idx): boolean {
  const entry = idx === row.idx ? row : { ...row, idx };
  try {
    if (entryHash(row.prevHash, entry) === row.hash) return true;
    return row.workspaceId === null && legacyEntryHash(row.prevHash, entry) === row.hash;
  } catch {
    return false; // a field no longer has a canonical form (e.g. NaN): modified
  }
}

/**
 * Why `row` cannot follow `prev`, or null if it does; `before` is the hash of the entry before
 * `prev`, `after` the row after `row`. When the link is broken the neighbours tell which kind of
 * tampering is most likely, and name the entry that was tampered with, not the one that noticed.
 */
function diagnose(
  row: AuditEntry,
  prev: Link,
  before: string | undefined,
  after: AuditEntry | undefined,
): { index: number; reason: string } | null {
  const { idx } = row;
  if (!Number.isSafeInteger(idx)) {
    // Reported at the position it took (indexes are integers in every API that shows them).
    const reason = `idx ${String(idx)} is not an integer: a forged entry was inserted`;
    return { index: prev.idx + 1, reason };
  }
  if (idx <= prev.idx) {
    const reason = `idx ${idx} does not follow ${prev.idx}: an entry was inserted or reordered`;
    return { index: idx, reason };
  }
  if (idx > prev.idx + 1) {
    const first = prev.idx + 1;
    const which = idx === first + 1 ? `entry ${first} is` : `entries ${first}–${idx - 1} are`;
    return { index: first, reason: `${which} missing: deleted` };
  }
  const linked = row.prevHash === prev.hash;
  const sound = hashMatches(row);
  if (linked && sound) return null;
  if (linked) return { index: idx, reason: `entry ${idx} was modified: its hash does not match` };
  if (after?.hash === row.prevHash) {
    return {
      index: idx,
      reason: `entries ${idx} and ${after.idx} were reordered: entry ${idx} names the entry after it as its predecessor`,
    };
  }
  if (before !== undefined && row.prevHash === before) {
    return {
      index: prev.idx,
      reason: `entry ${prev.idx} was inserted (forged): entry ${idx} names entry ${prev.idx - 1} as its predecessor`,
    };
  }
  if (!sound && hashMatches(row, idx + 1)) {
    return {
      index: idx,
      reason: `entry ${idx} was deleted and later entries renumbered: entry ${idx} was hashed as ${idx + 1}`,
    };
  }
  if (sound) {
    // The entry is intact, so its predecessor is the one that changed (edited and re-hashed).
    return prev.idx === 0
      ? { index: idx, reason: `entry ${idx} does not start from the genesis hash: forged` }
      : {
          index: prev.idx,
          reason: `entry ${prev.idx} was replaced (modified and re-hashed): entry ${idx} names a different predecessor`,
        };
  }
  return {
    index: idx,
    reason: `entry ${idx} was modified: neither its prev_hash nor its hash match`,
  };
}

/** Walks the chain in idx order, then checks it against the checkpoint. */
export async function verifyChain(
  rows: AsyncIterable<AuditEntry>,
  checkpoint: Link | null,
): Promise<
  | { ok: false; entries: number; index: number; reason: string }
  | { ok: true; entries: number; head: Link | null }
> {
  const iterator = rows[Symbol.asyncIterator]();
  let next = await iterator.next();
  let prev: Link = { idx: 0, hash: GENESIS_HASH };
  let before: string | undefined;
  let entries = 0;
  let atCheckpoint: string | undefined;
  while (!next.done) {
    const row = next.value;
    next = await iterator.next();
    entries += 1;
    const fault = diagnose(row, prev, before, next.done ? undefined : next.value);
    if (fault) return { ok: false, entries, ...fault };
    if (row.idx === checkpoint?.idx) atCheckpoint = row.hash;
    before = prev.hash;
    prev = { idx: row.idx, hash: row.hash };
  }
  if (checkpoint && prev.idx < checkpoint.idx) {
    return {
      ok: false,
      entries,
      index: prev.idx + 1,
      reason: `tail truncated: the log ends at entry ${prev.idx} but the checkpoint names entry ${checkpoint.idx}`,
    };
  }
  if (checkpoint && atCheckpoint !== checkpoint.hash) {
    return {
      ok: false,
      entries,
      index: checkpoint.idx,
      reason: `entry ${checkpoint.idx} differs from the checkpoint: the log was rewritten up to it (re-hashed, or cut off and appended to)`,
    };
  }
  return { ok: true, entries, head: prev.idx === 0 ? null : prev };
}
