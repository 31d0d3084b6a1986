/**
 * Garbage collection of content: removes content that no version refers to any more (deleted
 * workspaces, writes that never committed), after a grace period, safely against writes that
 * start referring to the same content meanwhile. The protocol and its invariant are written down
 * in docs/storage.md ("Garbage collection"); the writers' half is `registerContent` (ingest.ts).
 *
 * Works on any BlobStore through `list`, `has` and `delete` only, and on both metadata dialects.
 */
import { randomUUID } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import {
  DEFAULT_GC_GRACE_SECONDS,
  type GcOptions,
  GcOptionsSchema,
  type GcReport,
} from '@satchel/client/schemas/index.js';
import type { BlobStore } from '../store/blob-store.js';
import type { MetadataStore, MetadataTx } from '../store/metadata/metadata-store.js';

/** What garbage collection needs of the engine. */
export interface GcServices {
  readonly store: MetadataStore;
  readonly blobs: BlobStore;
  readonly clock: () => number;
  /** Runs a write transaction (the engine's group committer). */
  readonly committer: { run<T>(op: (tx: MetadataTx) => Promise<T>): Promise<T> };
}

/** Where a run is, for a progress display. */
export interface GcProgress {
  /** `registry`: unreferenced registry rows; `files`: blob-store files without a row. */
  readonly phase: 'registry' | 'files';
  /** Contents looked at so far in this phase. */
  readonly examined: number;
  /** Contents removed (or, in a dry run, found removable) so far, both phases. */
  readonly removed: number;
}

export interface GcRunOptions extends GcOptions {
  readonly onProgress?: (progress: GcProgress) => void;
  /** Who holds the lease while this run lasts (default: a random id). */
  readonly holder?: string;
}

const LEASE = 'gc';
/** A run renews its lease before every batch; a holder silent this long has stopped. */
const LEASE_MS = 10 * 60_000;
/** Contents decided per transaction: short transactions, short waits for writers. */
const BATCH = 50;
/** Blob-store deletions at once. */
const PARALLEL_DELETES = 8;
const MAX_LISTED = 1000;

function alreadyRunning(): SatchelError {
  return new SatchelError(
    'CONFLICT',
    'garbage collection is already running (in another process or on another node); try later',
    { reason: 'gc_running' },
  );
}

/**
 * One garbage-collection run. Without `dryRun` it holds the database's `gc` lease for its
 * duration (CONFLICT `gc_running` while another run holds it), first finishes deletions an
 * interrupted run decided, then removes unreferenced registry rows registered before the grace
 * period and blob-store files that have been seen without a registry row for longer than it.
 * A dry run takes no lease, changes nothing, and reports what a run now would remove.
 */
export async function collectGarbage(
  services: GcServices,
  rawOptions?: GcRunOptions,
): Promise<GcReport> {
  const { onProgress, holder = randomUUID(), ...rest } = rawOptions ?? {};
  const options = parseOptions(GcOptionsSchema, rest);
  const run = new GcRun(services, {
    dryRun: options.dryRun ?? false,
    graceSeconds: options.graceSeconds ?? DEFAULT_GC_GRACE_SECONDS,
    holder,
    onProgress,
  });
  return run.run();
}

class GcRun {
  readonly #s: GcServices;
  readonly #dryRun: boolean;
  readonly #graceSeconds: number;
  readonly #holder: string;
  readonly #onProgress: ((progress: GcProgress) => void) | undefined;
  readonly #hashes: string[] = [];
  #removed = 0;
  #bytesFreed = 0;
  #unregistered = 0;
  #keptInGrace = 0;
  #resumed = 0;

  constructor(
    services: GcServices,
    o: {
      dryRun: boolean;
      graceSeconds: number;
      holder: string;
      onProgress: ((progress: GcProgress) => void) | undefined;
    },
  ) {
    this.#s = services;
    this.#dryRun = o.dryRun;
    this.#graceSeconds = o.graceSeconds;
    this.#holder = o.holder;
    this.#onProgress = o.onProgress;
  }

  async run(): Promise<GcReport> {
    const started = this.#s.clock();
    const cutoff = started - this.#graceSeconds * 1000;
    if (!this.#dryRun && !(await this.#renewLease())) throw alreadyRunning();
    try {
      if (!this.#dryRun) await this.#finishInterrupted();
      await this.#registryPhase(cutoff);
      await this.#filesPhase(cutoff);
      if (!this.#dryRun) await this.#s.committer.run((tx) => tx.gc.forgetSeen(started));
    } finally {
      if (!this.#dryRun) {
        await this.#s.committer
          .run((tx) => tx.gc.releaseLease(LEASE, this.#holder))
          .catch(() => undefined);
      }
    }
    return {
      dryRun: this.#dryRun,
      graceSeconds: this.#graceSeconds,
      removed: this.#removed,
      bytesFreed: this.#bytesFreed,
      unregisteredFiles: this.#unregistered,
      keptInGrace: this.#keptInGrace,
      resumed: this.#resumed,
      hashes: this.#hashes,
      truncated: this.#removed > this.#hashes.length,
      durationMs: Math.max(0, this.#s.clock() - started),
    };
  }

  #renewLease(): Promise<boolean> {
    const now = this.#s.clock();
    return this.#s.committer.run((tx) =>
      tx.gc.acquireLease(LEASE, this.#holder, now, now + LEASE_MS),
    );
  }

  /** Before deleting bytes: a run that lost its lease must not delete anything more. */
  async #holdLease(): Promise<void> {
    if (!(await this.#renewLease())) {
      throw new SatchelError('UNAVAILABLE', 'garbage collection lost its lease; stopped', {
        reason: 'gc_lease_lost',
        retryAfter: 60,
      });
    }
  }

  #count(hash: string, bytes: number): void {
    this.#removed++;
    this.#bytesFreed += bytes;
    if (this.#hashes.length < MAX_LISTED) this.#hashes.push(hash);
  }

  #progress(phase: GcProgress['phase'], examined: number): void {
    this.#onProgress?.({ phase, examined, removed: this.#removed });
  }

  /** Deletes the bytes of contents marked `deleting`, then lifts the marks. */
  async #deleteBytes(hashes: readonly string[]): Promise<void> {
    if (hashes.length === 0) return;
    await this.#holdLease();
    for (let i = 0; i < hashes.length; i += PARALLEL_DELETES) {
      await Promise.all(hashes.slice(i, i + PARALLEL_DELETES).map((h) => this.#s.blobs.delete(h)));
    }
    await this.#s.committer.run((tx) => tx.gc.finishDeleting(hashes));
  }

  /** Deletions a run decided but did not finish (it crashed, or lost its lease). */
  async #finishInterrupted(): Promise<void> {
    for (;;) {
      const pending = await this.#s.store.gc.deleting(BATCH);
      if (pending.length === 0) return;
      await this.#deleteBytes(pending);
      this.#resumed += pending.length;
    }
  }

  async #registryPhase(cutoff: number): Promise<void> {
    let after: string | null = null;
    let examined = 0;
    for (;;) {
      const page = await this.#s.store.gc.unreferenced(cutoff, after, BATCH);
      const last = page.at(-1);
      if (!last) return;
      after = last.hash;
      examined += page.length;
      if (this.#dryRun) {
        for (const blob of page) this.#count(blob.hash, blob.size);
      } else {
        const now = this.#s.clock();
        const removed = await this.#s.committer.run(async (tx) => {
          const out: { hash: string; size: number; location: 'inline' | 'store' }[] = [];
          for (const blob of page) {
            const row = await tx.gc.collectRow(blob.hash, cutoff, now);
            if (row) out.push({ hash: blob.hash, ...row });
          }
          return out;
        });
        for (const row of removed) this.#count(row.hash, row.size);
        await this.#deleteBytes(removed.filter((r) => r.location === 'store').map((r) => r.hash));
      }
      this.#progress('registry', examined);
    }
  }

  async #filesPhase(cutoff: number): Promise<void> {
    let examined = 0;
    let batch: string[] = [];
    const flush = async () => {
      const hashes = batch;
      batch = [];
      examined += hashes.length;
      const registered = await this.#s.store.gc.registered(hashes);
      const orphans = hashes.filter((h) => !registered.has(h));
      if (orphans.length > 0) await this.#orphans(orphans, cutoff);
      this.#progress('files', examined);
    };
    for await (const hash of this.#s.blobs.list()) {
      batch.push(hash);
      if (batch.length >= BATCH) await flush();
    }
    if (batch.length > 0) await flush();
  }

  /** Blob-store files that had no registry row when listed. */
  async #orphans(hashes: readonly string[], cutoff: number): Promise<void> {
    if (this.#dryRun) {
      const seen = await this.#s.store.gc.seenSince(hashes);
      for (const hash of hashes) {
        const since = seen.get(hash) ?? this.#s.clock();
        if (since <= cutoff) this.#countOrphan(hash);
        else this.#keptInGrace++;
      }
      return;
    }
    const now = this.#s.clock();
    const verdicts = await this.#s.committer.run(async (tx) => {
      const out: [string, string][] = [];
      for (const hash of hashes) out.push([hash, await tx.gc.considerOrphan(hash, cutoff, now)]);
      return out;
    });
    const doomed = verdicts.filter(([, v]) => v === 'delete').map(([h]) => h);
    this.#keptInGrace += verdicts.filter(([, v]) => v === 'grace').length;
    for (const hash of doomed) this.#countOrphan(hash);
    await this.#deleteBytes(doomed);
  }

  #countOrphan(hash: string): void {
    this.#unregistered++;
    this.#count(hash, 0);
  }
}

/** A background schedule of garbage collection (`satchel serve`). */
export interface GcSchedule {
  /** Stops the schedule; waits for a run under way to end. */
  stop(): Promise<void>;
}

export interface GcScheduleOptions {
  /** Time between runs, in seconds (default 3600). */
  readonly intervalSeconds?: number;
  /** The grace period of each run (default `DEFAULT_GC_GRACE_SECONDS`). */
  readonly graceSeconds?: number;
  /** Told about every run that removed something or failed; never about skipped runs. */
  readonly onRun?: (outcome: { report: GcReport } | { error: unknown }) => void;
}

/**
 * Runs garbage collection every `intervalSeconds` (the first run one interval after the start).
 * On several nodes of one database every node may run a schedule: the `gc` lease lets one run
 * at a time, and a node that finds it held skips that turn.
 */
export function scheduleGc(services: GcServices, options: GcScheduleOptions = {}): GcSchedule {
  const intervalMs = (options.intervalSeconds ?? 3600) * 1000;
  const holder = randomUUID();
  let running: Promise<void> | null = null;
  let stopped = false;
  const turn = () => {
    running = collectGarbage(services, { graceSeconds: options.graceSeconds, holder })
      .then(
        (report) => {
          if (report.removed > 0 || report.resumed > 0) options.onRun?.({ report });
        },
        (error: unknown) => {
          const skipped = error instanceof SatchelError && error.data.reason === 'gc_running';
          if (!skipped && !stopped) options.onRun?.({ error });
        },
      )
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(() => {
    if (running === null && !stopped) turn();
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
