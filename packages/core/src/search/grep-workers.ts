/**
 * A small pool of grep worker threads (grep-worker.ts), started on first use: all RE2 work —
 * compiling a pattern as well as matching — runs there, never on the calling thread. RE2 cannot
 * be interrupted inside a line, so a job that outlives its deadline is abandoned and its worker
 * terminated; the pool starts a replacement when a job next needs one. The engine closes the
 * pool when it closes.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { SatchelError } from '@satchel/client/errors.js';
import type { BatchOutcome, MatcherSpec, ScanFile } from './grep-scan.js';

/** Files to scan in order, under one hit limit and deadline (grep-scan.ts, scanBatch). */
export interface ScanJob {
  readonly spec: MatcherSpec;
  /**
   * Buffers that a file's view covers whole are transferred to the worker, not copied: the
   * caller must not use those bytes again.
   */
  readonly files: readonly ScanFile[];
  readonly limit: number;
  readonly deadline: number;
}

/** What the pool posts to a worker. */
export type WorkerJob =
  | { readonly kind: 'compile'; readonly spec: MatcherSpec; readonly deadline: number }
  | ({ readonly kind: 'scan' } & ScanJob);

/** What a pattern compiles to: its program size, or why RE2 refuses it. */
export type Compiled = { readonly programSize: number } | { readonly invalid: string };

/** What a worker posts back: once `ready` after loading, then one reply per job. */
export type WorkerReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'compiled'; readonly compiled: Compiled }
  | { readonly kind: 'scanned'; readonly outcome: BatchOutcome }
  | { readonly kind: 'failed'; readonly message: string };

type Answer = Exclude<WorkerReply, { kind: 'ready' } | { kind: 'failed' }>;

export interface GrepWorkersOptions {
  /** Most worker threads (default: cores − 1, between 1 and 2). */
  readonly size?: number;
  /**
   * How long past its deadline a scan may run before its worker is terminated (default 50 ms).
   * A worker reads the clock between lines and normally stops first, with the hits it found.
   */
  readonly graceMs?: number;
}

interface Pending {
  readonly job: WorkerJob;
  /** Settles the caller's promise once: the answer, null for "out of time", or an error. */
  readonly settle: (result: Answer | null | SatchelError) => void;
}

interface Slot {
  readonly worker: Worker;
  /** Loaded and listening. Jobs go only to ready workers: a deadline never kills a starting one. */
  ready: boolean;
  job: Pending | null;
}

function closedError(): SatchelError {
  return new SatchelError('INTERNAL', 'grep was stopped: the engine is closing');
}

/**
 * Starts a worker thread. Built code runs `grep-worker.js` beside this file. From TypeScript
 * sources (vitest, tsx) it is `grep-worker.ts`, loaded after registering tsx in the new thread,
 * since Node 20 runs no TypeScript and `--import` in a worker's execArgv is not applied to its
 * entry module (tsx is a dev dependency, needed only there).
 */
function startWorker(): Worker {
  // Loaded with the first worker: a process that never greps does not pay for it.
  const { Worker } = createRequire(import.meta.url)(
    'node:worker_threads',
  ) as typeof import('node:worker_threads');
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./grep-worker.js', import.meta.url));
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./grep-worker.ts', import.meta.url).href);
  const boot = `import(${tsx}).then(({ register }) => { register(); return import(${entry}); });`;
  return new Worker(boot, { eval: true });
}

export class GrepWorkers {
  readonly #size: number;
  readonly #graceMs: number;
  readonly #slots = new Set<Slot>();
  readonly #queue: Pending[] = [];
  #closed = false;

  constructor(options: GrepWorkersOptions = {}) {
    this.#size = options.size ?? Math.max(1, Math.min(2, availableParallelism() - 1));
    this.#graceMs = options.graceMs ?? 50;
  }

  /**
   * Compiles `spec` on a worker, reporting its program size or RE2's refusal; null when the
   * deadline passed first. Rejects with INTERNAL as `scan` does.
   */
  async compile(spec: MatcherSpec, deadline: number): Promise<Compiled | null> {
    const answer = await this.#run({ kind: 'compile', spec, deadline });
    return answer?.kind === 'compiled' ? answer.compiled : null;
  }

  /**
   * Scans `job` on a worker. Resolves with null when its deadline (plus the grace) passes
   * first, whether it was still waiting for a free worker or running — a running one is
   * terminated. Rejects with INTERNAL when a worker fails or the pool is closed.
   */
  async scan(job: ScanJob): Promise<BatchOutcome | null> {
    const answer = await this.#run({ kind: 'scan', ...job });
    return answer?.kind === 'scanned' ? answer.outcome : null;
  }

  #run(job: WorkerJob): Promise<Answer | null> {
    if (this.#closed) return Promise.reject(closedError());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => this.#expire(pending),
        Math.max(0, job.deadline - Date.now()) + this.#graceMs,
      );
      const pending: Pending = {
        job,
        settle: (result) => {
          clearTimeout(timer);
          if (result instanceof SatchelError) reject(result);
          else resolve(result);
        },
      };
      this.#queue.push(pending);
      this.#pump();
    });
  }

  /** Terminates every worker; scans waiting or running are rejected with INTERNAL. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const pending of this.#queue.splice(0)) pending.settle(closedError());
    const slots = [...this.#slots];
    this.#slots.clear();
    for (const slot of slots) slot.job?.settle(closedError());
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  /** Hands waiting jobs to free workers, and starts workers (up to the size) for the rest. */
  #pump(): void {
    let starting = 0;
    for (const slot of this.#slots) {
      if (!slot.ready) starting++;
      else if (slot.job === null) {
        const pending = this.#queue.shift();
        if (pending === undefined) return;
        this.#dispatch(slot, pending);
      }
    }
    while (this.#queue.length > starting && this.#slots.size < this.#size) {
      this.#spawn();
      starting++;
    }
  }

  #dispatch(slot: Slot, pending: Pending): void {
    slot.job = pending;
    // A busy worker keeps the process alive until it answers; an idle one never does.
    slot.worker.ref();
    const { job } = pending;
    const transfer: ArrayBuffer[] = [];
    for (const { bytes } of job.kind === 'scan' ? job.files : []) {
      const { buffer } = bytes;
      const whole = bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
      if (whole && buffer instanceof ArrayBuffer && !transfer.includes(buffer))
        transfer.push(buffer);
    }
    slot.worker.postMessage(job, transfer);
  }

  #spawn(): void {
    const worker = startWorker();
    worker.unref();
    const slot: Slot = { worker, ready: false, job: null };
    this.#slots.add(slot);
    worker.on('message', (reply: WorkerReply) => {
      if (reply.kind === 'ready') slot.ready = true;
      else {
        const pending = slot.job;
        slot.job = null;
        worker.unref();
        pending?.settle(
          reply.kind === 'failed'
            ? new SatchelError('INTERNAL', `grep failed in its worker: ${reply.message}`)
            : reply,
        );
      }
      this.#pump();
    });
    worker.on('error', (error) => this.#lose(slot, error.message));
    worker.on('exit', (code) => this.#lose(slot, `exited with code ${code}`));
  }

  /** A worker died on its own: its job fails; if it never started, so does every waiting one. */
  #lose(slot: Slot, why: string): void {
    if (!this.#slots.delete(slot)) return;
    const failure = new SatchelError('INTERNAL', `a grep worker stopped: ${why}`);
    slot.job?.settle(failure);
    if (!slot.ready) for (const pending of this.#queue.splice(0)) pending.settle(failure);
    this.#pump();
  }

  #expire(pending: Pending): void {
    const waiting = this.#queue.indexOf(pending);
    if (waiting !== -1) {
      this.#queue.splice(waiting, 1);
      pending.settle(null);
      return;
    }
    for (const slot of this.#slots) {
      if (slot.job !== pending) continue;
      // Removed first, so its exit is not taken for a failure.
      this.#slots.delete(slot);
      slot.job = null;
      void slot.worker.terminate();
      pending.settle(null);
      this.#pump();
      return;
    }
  }
}
