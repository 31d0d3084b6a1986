/**
 * What auditing costs a 4 KiB read: `readFile` through the facade (authorised, audited) against
 * the engine's `readFile` called directly on a hand-built EngineContext over the same data.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { validateWorkspaceName } from '@satchel/client/paths.js';
import { authorize } from '../src/auth/authorize.js';
import { readFile } from '../src/engine/read.js';
import {
  BLOBS_DIR,
  DATABASE_FILE,
  DEFAULT_LIMITS,
  type FileStream,
  openSatchel,
  type SatchelEngine,
} from '../src/index.js';
import { type Actor, UNSCOPED } from '../src/kernel/actor.js';
import { type EngineContext, requireWorkspace } from '../src/kernel/context.js';
import { FsBlobStore } from '../src/store/fs-blob-store.js';
import { GroupCommitter } from '../src/store/group-commit.js';
import { MetadataStore } from '../src/store/metadata/metadata-store.js';
import { openSqlite, SQLITE_DIALECT } from '../src/store/metadata/sqlite.js';
import { randomOrder, textContents } from './reads.js';
import {
  type BenchConfig,
  type Check,
  freshDir,
  interleave,
  KIB,
  median,
  rateCheck,
  seconds,
  WORKSPACE,
} from './util.js';

const FILES = 2000;
/**
 * Short rounds, many of them (ROUND_FACTOR × BENCH_ROUNDS): the sides differ by a few tens of
 * microseconds per read, less than the load of a shared machine moves from second to second.
 */
const READS = 2000;
const ROUND_FACTOR = 3;
const FILE_SIZE = 4 * KIB;
const WARMUP_READS = 1000;

type Read = (path: string) => Promise<FileStream>;

/**
 * Reads/s of `read` over `order`, consuming every body and checking it saw every byte. `after`
 * runs inside the timed part: the audited sides flush their entries there, so that each side
 * pays for its own commits and none is left for the next side.
 */
async function readRate(
  read: Read,
  order: readonly number[],
  after?: () => Promise<unknown>,
): Promise<number> {
  let bytes = 0;
  const s = await seconds(async () => {
    for (const i of order) {
      const { body } = await read(`/r/${i}.txt`);
      for await (const piece of body) bytes += (piece as Uint8Array).byteLength;
    }
    await after?.();
  });
  if (bytes !== order.length * FILE_SIZE) {
    throw new Error(`read ${bytes} bytes, expected ${order.length * FILE_SIZE}`);
  }
  return order.length / s;
}

/**
 * The engine on a fresh data directory, opened through `openSatchel` with its metadata and blob
 * stores passed in, and next to it a context over those same stores built by hand as
 * src/test-support/lock-engine.ts does: no authorisation, no audit. Sharing the connection keeps
 * the comparison to the calls: a second connection would see its page cache dropped whenever the
 * first one commits (the audit does, every 50 ms).
 */
async function openBoth(config: BenchConfig): Promise<{
  satchel: SatchelEngine;
  bare: EngineContext;
  dispose(): Promise<void>;
}> {
  const data = await freshDir(config, 'audited-reads');
  const metadata = new MetadataStore(openSqlite(join(data, DATABASE_FILE)), SQLITE_DIALECT);
  const blobs = await FsBlobStore.open(join(data, BLOBS_DIR));
  const satchel = await openSatchel({ data, metadata, blobs });
  await satchel.createWorkspace(WORKSPACE);
  const committer = new GroupCommitter(metadata);
  const bare: EngineContext = {
    store: metadata,
    blobs,
    clock: Date.now,
    limits: DEFAULT_LIMITS,
    actor: {
      principalId: 'bench',
      name: 'bench',
      kind: 'agent',
      admin: false,
      keyId: null,
      scope: UNSCOPED,
    },
    commit: (op, options) => committer.run(op, options),
  };
  return {
    satchel,
    bare,
    dispose: async () => {
      await satchel.close(); // closes the metadata store too
      await rm(data, { recursive: true, force: true });
    },
  };
}

/** The facade's check before a read (LocalSatchel `#in(ws, 'file.read')`), without its audit. */
async function authorised(ctx: EngineContext, actor: Actor, path: string): Promise<FileStream> {
  validateWorkspaceName(WORKSPACE);
  const ws = await requireWorkspace(ctx.store, WORKSPACE);
  await authorize(ctx.store, actor, 'file.read', ws);
  return readFile(ctx, WORKSPACE, path);
}

/**
 * Issue 3: reads with auditing ≥ 0.9× reads without. Sides, interleaved: the bare engine call;
 * the facade as an agent authenticated by an API key with the viewer role (membership looked up
 * per call) and as the local admin (no membership lookup). The bare side also skips
 * authorisation, so those ratios are lower bounds for what the audit alone costs; a fourth side,
 * the bare call after the same authorisation as the facade's, isolates the audit (and the
 * facade's per-call wrapping) for the agent.
 */
export async function auditedReads(config: BenchConfig): Promise<Check[]> {
  console.log(
    `\n[8] cost of auditing a 4 KiB read: ${config.rounds * ROUND_FACTOR} rounds of ${READS} ` +
      `random reads out of ${FILES} files, readFile + body; ` +
      'facade (authorised + audited) vs engine readFile on a bare context',
  );
  const { satchel, bare, dispose } = await openBoth(config);
  try {
    const contents = textContents(FILES);
    for (let start = 0; start < FILES; start += 100) {
      const files = contents
        .slice(start, start + 100)
        .map((content, k) => ({ path: `/r/${start + k}.txt`, content }));
      await satchel.writeFiles(WORKSPACE, files);
    }
    await satchel.createPrincipal({ name: 'reader', kind: 'agent' });
    await satchel.setMember(WORKSPACE, 'reader', 'viewer');
    const { key } = await satchel.createKey({ principal: 'reader' });
    const actor = await satchel.authenticate(key);
    const agent = satchel.as(actor);

    const sides: Record<'bare' | 'authorised' | 'agent' | 'admin', Read> = {
      bare: (path) => readFile(bare, WORKSPACE, path),
      authorised: (path) => authorised(bare, actor, path),
      agent: (path) => agent.readFile(WORKSPACE, path),
      admin: (path) => satchel.readFile(WORKSPACE, path),
    };
    // listAudit commits whatever reads have queued before it lists (one page of one entry).
    const flush = () => satchel.listAudit({ limit: 1 });
    const warm = randomOrder(WARMUP_READS, FILES, 1);
    for (const read of Object.values(sides)) await readRate(read, warm, flush);

    const rounds = config.rounds * ROUND_FACTOR;
    const orders = Array.from({ length: rounds }, (_, r) => randomOrder(READS, FILES, r + 2));
    // CPU per read (user + system, this process): steadier than wall time on a busy machine,
    // but blind to waits (the audit's commits fsync on the main thread).
    const cpu: Record<string, number[]> = { bare: [], authorised: [], agent: [], admin: [] };
    const side = (name: keyof typeof sides, audited: boolean) => async (round: number) => {
      const before = process.cpuUsage();
      const rate = await readRate(sides[name], orders[round] ?? [], audited ? flush : undefined);
      const used = process.cpuUsage(before);
      cpu[name]?.push((used.user + used.system) / READS);
      return rate;
    };
    const rates = await interleave(rounds, [
      { label: 'bare', run: side('bare', false) },
      { label: 'authorised', run: side('authorised', false) },
      { label: 'agent', run: side('agent', true) },
      { label: 'admin', run: side('admin', true) },
    ]);
    const [bareRates = [], authorisedRates = [], agentRates = [], adminRates = []] = rates;
    const baseline = {
      label: 'engine readFile, bare context (no auth, no audit)',
      values: bareRates,
    };
    const agentSide = { label: 'facade readFile as agent (viewer, API key)', values: agentRates };
    const checks = [
      rateCheck('8 audited read: agent key', 'reads/s', baseline, agentSide, 0.9),
      rateCheck(
        '8 audited read: local admin',
        'reads/s',
        baseline,
        { label: 'facade readFile as local admin', values: adminRates },
        0.9,
      ),
    ];
    console.log(
      '  ratio = audited / bare; the bare side also skips authorisation (the workspace check, ' +
        "and for the agent the membership lookup), so it is a lower bound for the audit's cost alone",
    );
    const authorisedSide = {
      label: 'engine readFile after authorize (as the agent), no audit',
      values: authorisedRates,
    };
    checks.push(rateCheck('8 audit alone: agent key', 'reads/s', authorisedSide, agentSide, 0.9));
    console.log(
      '  ratio = facade / (bare + the same authorisation): the audit plus the facade wrapping a call',
    );
    const perRead = Object.entries(cpu)
      .map(([name, values]) => `${name} ${median(values).toFixed(0)}`)
      .join(', ');
    console.log(`  CPU per read, µs (median of rounds): ${perRead}`);
    return checks;
  } finally {
    await dispose();
  }
}
