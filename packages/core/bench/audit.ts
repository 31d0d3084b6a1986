/** Audit benchmarks: durable append rates (per commit, concurrent, grouped) and verify speed. */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type AuditInput, AuditLog } from '../src/audit/audit-log.js';
import { GroupCommitter } from '../src/store/group-commit.js';
import { MetadataStore } from '../src/store/metadata/metadata-store.js';
import { openSqlite, SQLITE_DIALECT } from '../src/store/metadata/sqlite.js';
import {
  type BenchConfig,
  type Check,
  fmtRate,
  freshDir,
  median,
  percentile,
  seconds,
  settle,
} from './util.js';

/** Each measured phase runs about this long; the whole benchmark stays under ~20 s. */
const PHASE_SECONDS = 3;
const WRITERS = 16;
/** record() calls between yields to the event loop, as a busy read path would make them. */
const RECORD_BURST = 100;

interface Log {
  readonly store: MetadataStore;
  readonly committer: GroupCommitter;
  readonly audit: AuditLog;
  close(): Promise<void>;
}

/** `checkpointDelayMs` as the engine uses it unless given (0: rewrite it after every commit). */
async function openLog(dir: string, checkpointDelayMs?: number): Promise<Log> {
  await mkdir(dir, { recursive: true });
  const store = new MetadataStore(openSqlite(join(dir, 'satchel.db')), SQLITE_DIALECT);
  await store.migrate();
  const committer = new GroupCommitter(store);
  const audit = new AuditLog({
    store,
    run: (op) => committer.run(op),
    checkpointFile: join(dir, 'audit.checkpoint'),
    ...(checkpointDelayMs === undefined ? {} : { checkpointDelayMs }),
  });
  return {
    store,
    committer,
    audit,
    close: async () => {
      await audit.close();
      await store.close();
    },
  };
}

function entry(n: number): AuditInput {
  return {
    time: Date.now(),
    actor: `agent-${n % 8}`,
    session: 'bench',
    action: n % 2 === 0 ? 'writeFile' : 'readFile',
    workspace: 'bench',
    workspaceId: 'bench-id',
    path: `/w/${n}`,
    seq: n % 2 === 0 ? n : null,
    outcome: 'ok',
    code: null,
  };
}

const elapsed = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;

function latencies(ms: number[]): string {
  ms.sort((a, b) => a - b);
  return `p50 ${median(ms).toFixed(2)} ms, p99 ${percentile(ms, 0.99).toFixed(2)} ms`;
}

interface Phase {
  readonly rate: number;
  readonly text: string;
}

/**
 * One mutation entry per transaction, one writer: every entry pays a full durable commit. With
 * `awaitCheckpoint`, the checkpoint file is also rewritten (temp file, fsync, rename) after every
 * commit and awaited: what the log would cost without the engine's debounced checkpoint.
 */
async function perCommit(dir: string, awaitCheckpoint: boolean): Promise<Phase> {
  const log = await openLog(dir, awaitCheckpoint ? 0 : undefined);
  try {
    settle();
    const ms: number[] = [];
    const start = process.hrtime.bigint();
    let n = 0;
    while (elapsed(start) < PHASE_SECONDS) {
      const t = performance.now();
      await log.committer.run((tx) => log.audit.appendInTx(tx, entry(n++)));
      if (awaitCheckpoint) await log.audit.checkpoint();
      else void log.audit.checkpoint();
      ms.push(performance.now() - t);
    }
    const rate = n / elapsed(start);
    return { rate, text: `${fmtRate(rate)} entries/s (${latencies(ms)})` };
  } finally {
    await log.close();
  }
}

/** One entry per transaction from concurrent writers: their commits share fsyncs. */
async function concurrent(dir: string): Promise<Phase> {
  const log = await openLog(dir);
  try {
    settle();
    let n = 0;
    const start = process.hrtime.bigint();
    const writer = async (): Promise<void> => {
      while (elapsed(start) < PHASE_SECONDS) {
        await log.committer.run((tx) => log.audit.appendInTx(tx, entry(n++)));
        void log.audit.checkpoint();
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, writer));
    const rate = n / elapsed(start);
    return { rate, text: `${fmtRate(rate)} entries/s` };
  } finally {
    await log.close();
  }
}

/**
 * record() as reads and refusals use it: never awaited by the caller, committed in groups within
 * flushDelayMs. Reports the rate, the latency until durable, what a call costs its caller, and
 * the CPU per entry all told (hashing, insert, commit); returns the log for the verify phase.
 */
async function grouped(dir: string): Promise<{ rate: number; lines: string[]; log: Log }> {
  const log = await openLog(dir);
  settle();
  const ms: number[] = [];
  let n = 0;
  let callerSeconds = 0;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  while (elapsed(start) < PHASE_SECONDS) {
    const burst = process.hrtime.bigint();
    for (let i = 0; i < RECORD_BURST; i++) {
      const t = performance.now();
      const durable = log.audit.record(entry(n++));
      if (i === 0) void durable.then(() => ms.push(performance.now() - t));
    }
    callerSeconds += elapsed(burst);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await log.audit.flush();
  const s = elapsed(start);
  const used = process.cpuUsage(cpu);
  const lines = [
    `${fmtRate(n / s)} entries/s, recorded → durable ${latencies(ms)}`,
    `${((callerSeconds / n) * 1e6).toFixed(2)} µs per call on the caller's path, ` +
      `${((used.user + used.system) / n).toFixed(1)} µs CPU per entry all told`,
  ];
  return { rate: n / s, lines, log };
}

/**
 * Issue 3: audit append rate with durable commits (SQLite WAL, synchronous=FULL): one entry per
 * commit as every mutation appends it, and group-committed as reads and refusals record them;
 * also 16 concurrent writers and verify() speed. The issue sets no target: the rates are reported.
 */
export async function auditAppends(config: BenchConfig): Promise<Check[]> {
  const root = await freshDir(config, 'audit');
  console.log(
    `\n[7] durable audit appends (AuditLog on SQLite WAL, synchronous=FULL), ` +
      `${PHASE_SECONDS} s per phase`,
  );
  try {
    const row = (label: string, value: string): void =>
      console.log(`  ${label.padEnd(50)} ${value}`);
    const single = await perCommit(join(root, 'seq'), false);
    row('appendInTx, 1 entry per commit, 1 writer', single.text);
    const cp = await perCommit(join(root, 'seq-cp'), true);
    row('  same, checkpoint rewritten and awaited each time', cp.text);
    const many = await concurrent(join(root, 'concurrent'));
    row(`appendInTx, 1 entry per commit, ${WRITERS} writers`, many.text);
    const { rate, lines, log } = await grouped(join(root, 'grouped'));
    row('record(), group-committed (50 ms)', lines[0] ?? '');
    row('  cost per record()', lines[1] ?? '');
    try {
      let result = { ok: false, entries: 0 };
      const s = await seconds(async () => {
        result = await log.audit.verify();
      });
      if (!result.ok) throw new Error('audit verify failed on the benchmark log');
      row('verify()', `${fmtRate(result.entries / s)} entries/s (${result.entries} entries)`);
    } finally {
      await log.close();
    }
    const report = (benchmark: string, value: number): Check => ({
      benchmark,
      subject: `${fmtRate(value)} entries/s`,
      baseline: '-',
      measured: `${fmtRate(value)} entries/s`,
      target: 'report',
      pass: null,
    });
    return [
      report('7 audit append, 1 per durable commit', single.rate),
      report(`7 audit append, ${WRITERS} writers`, many.rate),
      report('7 audit append, group-committed', rate),
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
