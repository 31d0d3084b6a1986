/** kill -9 a writer, 20 rounds on one data dir: acked writes survive and fsck stays ok. */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { isSatchelError } from '@satchel/client/errors.js';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import type { FileInfo } from '@satchel/client/schemas/index.js';
import { expect, it } from 'vitest';
import { CRASH_WORKSPACE, mulberry32 } from '../test-support/crash-writer.js';
import { readAll, tempDir } from '../test-support/temp.js';
import { DEFAULT_LIMITS, openSatchel } from './open.js';

// Reproduce a failure with SATCHEL_CRASH_SEED=<the seed in the message>.
const ROUNDS = 20;
const FIRST_ACK_TIMEOUT_MS = 30_000;
/** Writers started ahead of their round, loading while earlier rounds run. */
const AHEAD = 3;
const SCRIPT = fileURLToPath(new URL('../test-support/crash-writer.ts', import.meta.url));
// `--import tsx` resolves from the working directory: the package that has tsx installed.
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SEED = Number(process.env.SATCHEL_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 32));

interface ChildRun {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

interface Writer {
  /** Lets the writer open the data directory; SIGKILLs it `delayMs` after its first ack. */
  run(delayMs: number): Promise<ChildRun>;
  kill(): void;
}

/**
 * Starts a writer that loads (the slow part: ~2 s of module loading) and then waits, so the
 * next round's writer can get ready while this round runs.
 */
function startWriter(data: string, seed: number): Writer {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, data, String(seed), '--wait'], {
    cwd: PACKAGE_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let onFirstAck: (() => void) | null = null;
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal }));
    },
  );
  // Awaited in run(); this keeps an early failure of an unused writer from going unhandled.
  closed.catch(() => undefined);
  // A writer that died early closes its stdin; its stderr tells why.
  child.stdin.on('error', () => undefined);
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    stdout += chunk;
    if (onFirstAck && /^ack /m.test(stdout)) {
      onFirstAck();
      onFirstAck = null;
    }
  });
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  return {
    async run(delayMs) {
      const startup = setTimeout(() => child.kill('SIGKILL'), FIRST_ACK_TIMEOUT_MS);
      onFirstAck = () => {
        clearTimeout(startup);
        setTimeout(() => child.kill('SIGKILL'), delayMs);
      };
      child.stdin.end('go\n');
      try {
        const { code, signal } = await closed;
        return { stdout, stderr, code, signal };
      } finally {
        clearTimeout(startup);
      }
    },
    kill() {
      child.kill('SIGKILL');
    },
  };
}

/** What the writer said about one path during a round. */
interface PathLog {
  /** Content of the newest acknowledged write. */
  acked: string | null;
  /** Content of a write that started after it and was not acknowledged. */
  pending: string | null;
  /** Every acknowledged content: each must be in the path's history. */
  readonly ackedAll: string[];
}

function parseLog(stdout: string): Map<string, PathLog> {
  const lines = stdout.split('\n');
  lines.pop(); // empty after a final newline, or a line cut off by the kill
  const logs = new Map<string, PathLog>();
  for (const line of lines) {
    const match = /^(start|ack) (\/f\/\d+\.bin) ([0-9a-f]{64})$/.exec(line);
    const [, kind, path, sha] = match ?? [];
    if (kind === undefined || path === undefined || sha === undefined) {
      throw new Error(`unexpected line from the writer: ${JSON.stringify(line)}`);
    }
    const log = logs.get(path) ?? { acked: null, pending: null, ackedAll: [] };
    logs.set(path, log);
    if (kind === 'start') {
      // The writer never starts a write of a path before the previous one was acknowledged.
      expect(log.pending, `${path} started twice without an ack`).toBeNull();
      log.pending = sha;
    } else {
      expect(log.pending, `${path} acked without a start`).toBe(sha);
      log.acked = sha;
      log.pending = null;
      log.ackedAll.push(sha);
    }
  }
  return logs;
}

async function headHash(satchel: Satchel, path: string): Promise<string | null> {
  try {
    return (await satchel.stat(CRASH_WORKSPACE, path)).hash;
  } catch (error) {
    if (isSatchelError(error, 'NOT_FOUND')) return null;
    throw error;
  }
}

async function historyHashes(satchel: Satchel, path: string): Promise<Set<string>> {
  const hashes = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await satchel.listVersions(CRASH_WORKSPACE, path, { limit: 1000, cursor });
    for (const version of page.items) if (version.hash !== null) hashes.add(version.hash);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return hashes;
}

async function listedFiles(satchel: Satchel): Promise<FileInfo[]> {
  const files: FileInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await satchel.list(CRASH_WORKSPACE, { path: '/f', limit: 1000, cursor });
    files.push(...page.items.filter((item) => item.type === 'file'));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return files;
}

/**
 * Checks the data directory against what the writer acknowledged, given `heads` (each path's
 * content as verified after the previous round, null if absent); returns the new heads and how
 * many current files are too large to be stored inline (they live in the blob store).
 */
async function verify(
  data: string,
  heads: ReadonlyMap<string, string | null>,
  logs: ReadonlyMap<string, PathLog>,
): Promise<{ heads: Map<string, string | null>; large: number }> {
  const satchel = await openSatchel({ data });
  try {
    const next = new Map<string, string | null>();
    for (const path of new Set([...heads.keys(), ...logs.keys()])) {
      const log = logs.get(path);
      const durable = log?.acked ?? heads.get(path) ?? null;
      const allowed = log?.pending ? [durable, log.pending] : [durable];
      const actual = await headHash(satchel, path);
      expect(allowed, `head of ${path}`).toContain(actual);
      if (log && actual !== null) {
        const { body } = await satchel.readFile(CRASH_WORKSPACE, path);
        const sha = createHash('sha256')
          .update(await readAll(body))
          .digest('hex');
        expect(sha, `content of ${path}`).toBe(actual);
      }
      if (log && log.ackedAll.length > 0) {
        const history = await historyHashes(satchel, path);
        for (const sha of log.ackedAll) expect(history.has(sha), `${path} lost ${sha}`).toBe(true);
      }
      next.set(path, actual);
    }
    const present = [...next].filter(([, sha]) => sha !== null).map(([path]) => path);
    const listed = await listedFiles(satchel);
    expect(listed.map((file) => file.path).sort()).toEqual(present.sort());
    const report = await satchel.fsck();
    expect(report.corrupt).toEqual([]);
    expect(report.missing).toEqual([]);
    expect(report.ok).toBe(true);
    const large = listed.filter((file) => file.size > DEFAULT_LIMITS.inlineThreshold).length;
    return { heads: next, large };
  } finally {
    await satchel.close();
  }
}

it(`keeps every acknowledged write across ${ROUNDS} kill -9s (seed ${SEED})`, {
  timeout: 120_000,
}, async () => {
  const data = await tempDir('satchel-crash-');
  const random = mulberry32(SEED);
  const plans = Array.from({ length: ROUNDS }, () => ({
    seed: Math.floor(random() * 2 ** 31),
    delayMs: 50 + Math.floor(random() * 351),
  }));
  const writers = plans.slice(0, AHEAD).map((plan) => startWriter(data, plan.seed));
  let heads = new Map<string, string | null>();
  let acks = 0;
  let large = 0;
  try {
    for (const [round, plan] of plans.entries()) {
      const writer = writers.shift();
      if (!writer) throw new Error('no writer started');
      const upcoming = plans[round + AHEAD];
      if (upcoming) writers.push(startWriter(data, upcoming.seed));
      try {
        const run = await writer.run(plan.delayMs);
        expect(run.signal, `the writer was not killed; stderr:\n${run.stderr}`).toBe('SIGKILL');
        expect(run.stdout, `the writer never acked; stderr:\n${run.stderr}`).toMatch(/^ack /m);
        const logs = parseLog(run.stdout);
        for (const log of logs.values()) acks += log.ackedAll.length;
        const verified = await verify(data, heads, logs);
        heads = verified.heads;
        large += verified.large;
      } catch (error) {
        const where = `SATCHEL_CRASH_SEED=${SEED}, round ${round}, writer seed ${plan.seed}`;
        const when = `killed ${plan.delayMs} ms after the first ack`;
        if (error instanceof Error) error.message = `${where}, ${when}: ${error.message}`;
        throw error;
      }
    }
  } finally {
    for (const writer of writers) writer.kill();
  }
  expect(acks).toBeGreaterThan(ROUNDS);
  // Large files present after the rounds, summed: content outside the database was checked.
  expect(large, 'no write went to the blob store').toBeGreaterThan(0);
});
