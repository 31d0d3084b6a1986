/**
 * The tamper-evident audit log (DESIGN.md, Audit log): an append-only, hash-chained table plus a
 * checkpoint file outside the database naming the newest entry, so a cut-off tail shows too.
 *
 * Format: entries are numbered from idx 1 without gaps. Entry n stores prev_hash = the hash of
 * entry n-1 (GENESIS_HASH for n = 1) and hash = hex(SHA-256(utf8(prev_hash) ‖ utf8(JCS(e)))),
 * where JCS is RFC 8785 canonical JSON of e = { idx, time, actor, session, action, workspace,
 * workspaceId, path, seq, outcome, code }. Entries written before workspace ids were recorded
 * (migration 0006) hash e without `workspaceId` and keep a null id; verification accepts that
 * form only for an entry whose id is null. The checkpoint file holds `{"idx":n,"hash":"…"}`.
 *
 * What it proves: an edit, deletion, insertion or reordering of entries, and a cut-off tail, are
 * found by `verify()` unless whoever made them also re-hashed every later entry AND rewrote the
 * checkpoint file; the hash has no secret, so anchor the checkpoint (or an export) elsewhere to
 * rule that out.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { SatchelError } from '@satchel/client/errors.js';
import type { AuditScope } from '../store/metadata/audit-queries.js';
import type { MetadataStore, MetadataTx } from '../store/metadata/metadata-store.js';
import {
  type AuditEntry,
  type AuditInput,
  type AuditVerification,
  appendAll,
  canonical,
  type Link,
  normalise,
  readCheckpoint,
  verifyChain,
} from './audit-chain.js';

export type { AuditScope } from '../store/metadata/audit-queries.js';
export type { AuditEntry, AuditInput, AuditVerification } from './audit-chain.js';
export { entryHash, GENESIS_HASH, legacyEntryHash } from './audit-chain.js';

export interface AuditLogOptions {
  readonly store: MetadataStore;
  /** The group committer's run: `(op) => committer.run(op)`. */
  readonly run: <T>(op: (tx: MetadataTx) => Promise<T>) => Promise<T>;
  /** Where the newest (idx, hash) is kept outside the database; null disables it (tests). */
  readonly checkpointFile: string | null;
  /** How long record() entries wait to share a commit: default 50 ms, at most 100. */
  readonly flushDelayMs?: number;
  /**
   * How long after a commit the checkpoint file is rewritten: default 100 ms. Commits within it
   * share one write, so a cut-off tail shorter than this can go unnoticed after a crash.
   */
  readonly checkpointDelayMs?: number;
}

/** Entries waiting for one commit; `done` settles (never rejects) when it has finished. */
interface Batch {
  readonly inputs: AuditInput[];
  readonly done: Promise<void>;
  readonly release: () => void;
}

function newBatch(): Batch {
  let release = (): void => undefined;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { inputs: [], done, release };
}

/** Queued entries beyond this are committed at once rather than at the timer (bounds memory). */
const MAX_QUEUED = 1000;
const PAGE = 1000;

/**
 * The audit log of one engine. Several processes may append to one database: each append reads
 * the head inside its own write transaction (SQLite serialises those; PostgreSQL needs a lock).
 * Close it before the store: close() still commits and writes the checkpoint.
 *
 * The audit chain head (read in `appendInTx`): appends are serialised on the head — the head an
 * append reads is the newest committed entry and no other append commits between that read and
 * this commit — so idx has no gaps and every prev_hash names its predecessor, across every node.
 * Every write transaction is a `SqlDialectInfo.writeTransaction` (SQLite's one writer; on
 * PostgreSQL an advisory lock taken first, so writers also never deadlock over the head). The
 * checkpoint file is per node: it only ever moves forward and lags the log by a few entries.
 */
export class AuditLog {
  readonly #store: MetadataStore;
  readonly #run: AuditLogOptions['run'];
  readonly #checkpointFile: string | null;
  readonly #delay: number;
  #batch: Batch | null = null;
  #timer: NodeJS.Timeout | null = null;
  readonly #inflight = new Set<Promise<void>>();
  #checkpointRunning: Promise<void> | null = null;
  readonly #checkpointDelayMs: number;
  #checkpointQueued: Promise<void> | null = null;
  /** Ends the queued checkpoint's wait at once (close: nothing more will share it). */
  #hurry: (() => void) | null = null;
  /** The newest entry this process saw committed (`checkpoint(committed)`). */
  #committed: Link | null = null;
  #state: 'open' | 'closing' | 'closed' = 'open';
  readonly #warned = new Set<string>();

  /** INVALID_INPUT if flushDelayMs is not between 0 and 100. */
  constructor(options: AuditLogOptions) {
    const delay = options.flushDelayMs ?? 50;
    if (!(delay >= 0 && delay <= 100)) {
      throw new SatchelError('INVALID_INPUT', 'flushDelayMs must be between 0 and 100', {
        field: 'flushDelayMs',
      });
    }
    this.#store = options.store;
    this.#run = options.run;
    this.#checkpointFile = options.checkpointFile;
    this.#checkpointDelayMs = options.checkpointDelayMs ?? 100;
    this.#delay = delay;
  }

  /**
   * Appends an entry inside a mutation's transaction: it commits with the mutation or not at all,
   * and a rollback leaves no gap. Call `checkpoint()` once that transaction has committed.
   * Throws INTERNAL for a malformed input, INTEGRITY if the stored head is not a valid index.
   */
  async appendInTx(tx: MetadataTx, input: AuditInput): Promise<AuditEntry> {
    const [row] = await appendAll(tx, [normalise(input)]);
    if (!row) throw new SatchelError('INTERNAL', 'audit append returned no entry');
    return { ...row };
  }

  /**
   * Queues an entry of a read or a refusal. Queued entries are handed to `run` together at most
   * flushDelayMs after the first of them, so the caller never waits for an fsync. The promise
   * resolves once the entry is durable, or once its commit failed: it never rejects; failures
   * (and malformed inputs, or calls after close) are logged to stderr.
   */
  record(input: AuditInput): Promise<void> {
    if (this.#state !== 'open') {
      console.error('satchel: audit: log is closed; entry dropped:', input);
      return Promise.resolve();
    }
    let entry: AuditInput;
    try {
      entry = normalise(input);
    } catch (error) {
      console.error('satchel: audit: entry dropped:', error);
      return Promise.resolve();
    }
    // One promise per batch, not per entry: this is on every read's path.
    this.#batch ??= newBatch();
    const batch = this.#batch;
    batch.inputs.push(entry);
    if (batch.inputs.length >= MAX_QUEUED) void this.flush();
    else if (this.#timer === null) {
      // Not unref'd: a process about to exit still commits what it recorded.
      this.#timer = setTimeout(() => void this.flush(), this.#delay);
    }
    return batch.done;
  }

  /** Commits everything queued now; resolves when it and every earlier flush have finished. */
  flush(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = this.#batch;
    this.#batch = null;
    if (batch) {
      const commit = this.#commit(batch).finally(() => this.#inflight.delete(commit));
      this.#inflight.add(commit);
    }
    return Promise.all(this.#inflight).then(() => undefined);
  }

  async #commit(batch: Batch): Promise<void> {
    let committed: AuditEntry | undefined;
    try {
      committed = (await this.#run((tx) => appendAll(tx, batch.inputs))).at(-1);
    } catch (error) {
      const count = batch.inputs.length;
      console.error(`satchel: audit: ${count} entries could not be committed:`, error);
    } finally {
      batch.release();
    }
    if (committed) void this.checkpoint(committed);
  }

  /**
   * Writes the newest committed (idx, hash) to the checkpoint file: temp file, fsync, rename, so
   * readers see the old or the new content, never a torn one. Calls while a write is running
   * share one follow-up write. The checkpoint only moves forward along the chain it names: if
   * the log no longer holds that entry unchanged, the file is left as evidence for `verify()`.
   * Never rejects; failures are logged to stderr. `committed`: an entry this process has just
   * seen committed; the newest such entry is written without asking the log for its head.
   */
  checkpoint(committed?: Link): Promise<void> {
    const file = this.#checkpointFile;
    if (file === null || this.#state === 'closed') return Promise.resolve();
    if (committed && committed.idx > (this.#committed?.idx ?? 0)) {
      this.#committed = { idx: committed.idx, hash: committed.hash };
    }
    if (this.#checkpointQueued) return this.#checkpointQueued;
    // Commits within checkpointDelayMs share one checkpoint write (and its fsync); one that
    // starts while a write runs follows it, since that write may have read an older head.
    const after = this.#checkpointRunning ?? Promise.resolve();
    const delay = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.#checkpointDelayMs);
      this.#hurry = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    const queued = Promise.all([after, delay]).then(() => {
      this.#checkpointQueued = null;
      this.#hurry = null;
      return this.#startCheckpoint(file);
    });
    this.#checkpointQueued = queued;
    return queued;
  }

  #startCheckpoint(file: string): Promise<void> {
    const write: Promise<void> = this.#writeCheckpoint(file)
      .catch((error: unknown) => console.error('satchel: audit: checkpoint failed:', error))
      .finally(() => {
        if (this.#checkpointRunning === write) this.#checkpointRunning = null;
      });
    this.#checkpointRunning = write;
    return write;
  }

  async #writeCheckpoint(file: string): Promise<void> {
    // Another node's later entries may be missing from it: the checkpoint only lags a little more.
    const head = this.#committed ?? (await this.#store.audit.head());
    if (!head || !Number.isSafeInteger(head.idx)) return;
    const current = await readCheckpoint(file);
    if (current.state === 'invalid') {
      return this.#warn(`checkpoint ${file} is unreadable (${current.reason}); left as it is`);
    }
    if (current.state === 'present') {
      // Another process may be ahead of the head read above; never move the checkpoint back.
      if (current.idx >= head.idx) return;
      const named = await this.#store.audit.entryAt(current.idx);
      if (named?.hash !== current.hash) {
        return this.#warn(
          `checkpoint ${file} names entry ${current.idx}, which the log no longer holds unchanged; left as it is (run audit verify)`,
        );
      }
    }
    const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await open(temp, 'w', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify({ idx: head.idx, hash: head.hash })}\n`);
        // Durable before it becomes visible; losing the rename itself only leaves an older one.
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  #warn(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    console.error(`satchel: audit: ${message}`);
  }

  /**
   * A page of entries in idx order after `after` (default 0), of `scope` (default all; see
   * AuditScope); the cursor is the last idx as a string, null on the last page. INVALID_INPUT
   * for a limit outside 1–1000 (default 100) or an `after` that is not a non-negative integer.
   */
  async list(
    options: { scope?: AuditScope; after?: number; limit?: number } = {},
  ): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
    const { scope, after = 0, limit = 100 } = options;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new SatchelError('INVALID_INPUT', 'invalid limit: must be an integer from 1 to 1000', {
        field: 'limit',
      });
    }
    if (!Number.isSafeInteger(after) || after < 0) {
      throw new SatchelError('INVALID_INPUT', 'invalid cursor: pass nextCursor unchanged', {
        field: 'cursor',
      });
    }
    // One extra row tells whether another page exists.
    const rows = await this.#store.audit.page({ after, limit: limit + 1, scope });
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return { items, nextCursor: rows.length > limit && last ? String(last.idx) : null };
  }

  /**
   * Recomputes the whole chain in idx order, a page at a time, and checks it against the
   * checkpoint file; reports the first bad entry and the most likely kind of tampering.
   */
  async verify(): Promise<AuditVerification> {
    // Read before the log: the file only names committed entries, so appends made meanwhile can
    // never make a sound log look truncated.
    const file = this.#checkpointFile;
    const checkpoint = file === null ? null : await readCheckpoint(file);
    const result = await verifyChain(
      this.#store.audit.entries(PAGE),
      checkpoint?.state === 'present' ? checkpoint : null,
    );
    if (!result.ok) return result;
    if (checkpoint?.state === 'invalid') {
      const reason = `checkpoint file ${file} is unreadable: ${checkpoint.reason}`;
      return { ok: false, entries: result.entries, index: 0, reason };
    }
    const state =
      checkpoint === null ? 'disabled' : checkpoint.state === 'missing' ? 'missing' : 'matched';
    return { ...result, checkpoint: state };
  }

  /** Every entry in idx order as one line of canonical JSON (with prevHash and hash) plus "\n". */
  async *exportJsonl(): AsyncIterable<string> {
    for await (const row of this.#store.audit.entries(PAGE)) yield `${canonical(row)}\n`;
  }

  /** Commits what is queued, writes the last checkpoint, and stops the timer; idempotent. */
  async close(): Promise<void> {
    if (this.#state !== 'open') return;
    this.#state = 'closing';
    await this.flush();
    // A process that is closing has no more commits to share the checkpoint with: write it now
    // (a one-shot CLI command would otherwise wait out the delay before it exits).
    const last = this.checkpoint();
    this.#hurry?.();
    await last;
    this.#state = 'closed';
  }
}
