/**
 * A grep worker thread: compiles patterns and scans batches of files (grep-scan.ts), posting
 * one reply per message. It runs where the pool (grep-workers.ts) can terminate
 * it: RE2 cannot be interrupted inside a line (nor while compiling), so a job that outlives its
 * deadline is stopped by killing this thread.
 */
import { parentPort } from 'node:worker_threads';
import { buildMatcher } from './grep-re2.js';
import { type Matcher, type MatcherSpec, scanBatch } from './grep-scan.js';
import type { WorkerJob, WorkerReply } from './grep-workers.js';

const port = parentPort;
if (port === null) throw new Error('grep-worker.js runs only as a worker thread');

// One pattern per grep call, and a call's jobs come one after another: keep the last one.
let last: { key: string; matcher: Matcher } | null = null;

function matcherFor(spec: MatcherSpec): Matcher {
  const key = JSON.stringify(spec);
  if (last?.key !== key) last = { key, matcher: buildMatcher(spec) };
  return last.matcher;
}

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

function answer(job: WorkerJob): WorkerReply {
  if (job.kind === 'scan') {
    const outcome = scanBatch(job.files, matcherFor(job.spec), job.limit, job.deadline);
    return { kind: 'scanned', outcome };
  }
  let matcher: Matcher;
  try {
    matcher = matcherFor(job.spec);
  } catch (error) {
    return { kind: 'compiled', compiled: { invalid: messageOf(error) } };
  }
  return { kind: 'compiled', compiled: { programSize: matcher.programSize } };
}

port.on('message', (job: WorkerJob) => {
  let reply: WorkerReply;
  try {
    reply = answer(job);
  } catch (error) {
    reply = { kind: 'failed', message: messageOf(error) };
  }
  port.postMessage(reply);
});

port.postMessage({ kind: 'ready' } satisfies WorkerReply);
