/**
 * The tamper matrix (issue 3): someone with the database file edits a 10,000-entry audit log
 * directly, after dropping the append-only triggers, and `verify()` names the entry touched.
 */
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MetadataStore } from '../store/metadata/metadata-store.js';
import { openSqlite, SQLITE_DIALECT } from '../store/metadata/sqlite.js';
import { tempDir } from '../test-support/temp.js';
import { type AuditInput, AuditLog, type AuditVerification, entryHash } from './audit-log.js';

const N = 10_000;
const K = [1, 4321, N - 1];
let base: string;

/** A row as the table holds it (workspace_id, not workspaceId). */
type Row = Omit<AuditInput, 'workspaceId'> & {
  idx: number;
  workspace_id: string | null;
  prev_hash: string;
  hash: string;
};

/** The entry a row holds, as the hash covers it. */
const entryOf = ({ workspace_id, ...r }: Row) => ({ ...r, workspaceId: workspace_id });
type Db = BetterSqlite3.Database;

function sample(n: number): AuditInput {
  const refused = n % 17 === 0;
  return {
    time: 1_700_000_000_000 + n * 37,
    actor: `agent-${n % 7}`,
    session: n % 5 === 0 ? null : `run-${n % 13}`,
    action: ['readFile', 'writeFile', 'list', 'lock.acquire'][n % 4] ?? 'list',
    workspace: n % 11 === 0 ? null : `ws-${n % 3}`,
    workspaceId: n % 11 === 0 ? null : `id-${n % 3}`,
    path: n % 4 === 2 ? null : `/dir/${n}.txt`,
    seq: n % 4 === 1 ? n : null,
    outcome: refused ? 'refused' : 'ok',
    code: refused ? 'FORBIDDEN' : null,
  };
}

async function withLog<T>(
  dir: string,
  fn: (audit: AuditLog, store: MetadataStore) => Promise<T>,
): Promise<T> {
  const store = new MetadataStore(openSqlite(join(dir, 'satchel.db')), SQLITE_DIALECT);
  try {
    await store.migrate();
    const checkpointFile = join(dir, 'audit.checkpoint');
    const audit = new AuditLog({ store, run: (op) => store.transaction(op), checkpointFile });
    try {
      return await fn(audit, store);
    } finally {
      await audit.close();
    }
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'satchel-tamper-'));
  // Big transactions: one fsync per 2,500 entries keeps the build well under a second or two.
  await withLog(base, async (audit, store) => {
    for (let start = 0; start < N; start += 2500) {
      await store.transaction(async (tx) => {
        for (let n = start; n < start + 2500; n++) await audit.appendInTx(tx, sample(n));
      });
    }
  });
}, 60_000);

afterAll(() => rm(base, { recursive: true, force: true }));

/** A fresh copy of the log; `edit` runs on the raw file as an attacker would, triggers dropped. */
async function tampered(edit: (db: Db) => void): Promise<string> {
  const dir = await tempDir('satchel-tamper-case-');
  await copyFile(join(base, 'satchel.db'), join(dir, 'satchel.db'));
  await copyFile(join(base, 'audit.checkpoint'), join(dir, 'audit.checkpoint'));
  const db = new BetterSqlite3(join(dir, 'satchel.db'));
  try {
    db.exec('drop trigger audit_no_update; drop trigger audit_no_delete');
    db.transaction(() => edit(db))();
  } finally {
    db.close();
  }
  return dir;
}

async function verifyAfter(edit: (db: Db) => void): Promise<AuditVerification> {
  // close() declines to move the checkpoint past a tampered log and says so on stderr.
  const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    return await withLog(await tampered(edit), (audit) => audit.verify());
  } finally {
    errors.mockRestore();
  }
}

const row = (db: Db, idx: number): Row =>
  db.prepare('select * from audit where idx = ?').get(idx) as Row;

const COLUMNS =
  'idx, time, actor, session, action, workspace, workspace_id, path, seq, outcome, code';
function insert(db: Db, r: Row): void {
  db.prepare(
    `insert into audit (${COLUMNS}, prev_hash, hash) values ` +
      '(@idx, @time, @actor, @session, @action, @workspace, @workspace_id, @path, @seq, @outcome, @code, @prev_hash, @hash)',
  ).run(r);
}

/** Moves every entry above `idx` up by one; in two steps, as the primary key is checked per row. */
function makeRoom(db: Db, idx: number): void {
  db.prepare('update audit set idx = -idx - 1 where idx > ?').run(idx);
  db.prepare('update audit set idx = -idx where idx < 0').run();
}

/** A forged entry at `idx` following entry `k`, hashed correctly: the algorithm is public. */
function forge(db: Db, k: number, idx: number): Row {
  const prev = row(db, k);
  const { workspaceId, ...rest } = sample(0);
  const entry = { ...rest, idx, time: prev.time + 1, actor: 'admin', action: 'members.add' };
  const hash = entryHash(prev.hash, { ...entry, workspaceId });
  return { ...entry, workspace_id: workspaceId, prev_hash: prev.hash, hash };
}

/** Recomputes prev_hash and hash of every entry above `idx`, as a careful forger would. */
function rehashAfter(db: Db, idx: number): void {
  let prev = row(db, idx).hash;
  const rows = db.prepare('select * from audit where idx > ? order by idx').all(idx) as Row[];
  const update = db.prepare('update audit set prev_hash = ?, hash = ? where idx = ?');
  for (const r of rows) {
    const hash = entryHash(prev, entryOf(r));
    update.run(prev, hash, r.idx);
    prev = hash;
  }
}

describe('tamper matrix on a log of 10,000 entries', () => {
  it('verifies the untouched copy', async () => {
    expect(await verifyAfter(() => undefined)).toMatchObject({
      ok: true,
      entries: N,
      head: { idx: N },
      checkpoint: 'matched',
    });
  });

  const FIELD_EDITS = [
    'time = time + 1',
    "actor = 'mallory'",
    "session = 'forged'",
    "action = 'list'",
    "workspace = 'elsewhere'",
    "path = '/innocent.txt'",
    'seq = 424242',
    "outcome = 'error'",
    "code = 'NONE'",
    "time = 'yesterday'",
    `hash = '${'ab'.repeat(32)}'`,
    `prev_hash = '${'cd'.repeat(32)}'`,
  ];
  it.each(FIELD_EDITS)('detects "set %s" on entry 4321 as a modification', async (set) => {
    const result = await verifyAfter((db) => db.exec(`update audit set ${set} where idx = 4321`));
    expect(result).toMatchObject({
      ok: false,
      index: 4321,
      reason: expect.stringMatching(/modified/),
    });
  });

  it.each([1, N])('detects a modification of entry %i', async (k) => {
    const result = await verifyAfter((db) =>
      db.exec(`update audit set actor = 'x' where idx = ${k}`),
    );
    expect(result).toMatchObject({
      ok: false,
      index: k,
      reason: expect.stringMatching(/modified/),
    });
  });

  it('detects an entry modified and re-hashed at that entry', async () => {
    const result = await verifyAfter((db) => {
      const r = { ...row(db, 4321), actor: 'mallory' };
      db.prepare('update audit set actor = ?, hash = ? where idx = 4321').run(
        r.actor,
        entryHash(r.prev_hash, entryOf(r)),
      );
    });
    expect(result).toMatchObject({
      ok: false,
      index: 4321,
      reason: expect.stringMatching(/replaced/),
    });
  });

  it.each([
    ['moved to another workspace', `'id-other'`],
    ['moved to the server level', 'null'],
  ])('detects an entry %s (its workspace id changed)', async (_, value) => {
    // 4321 % 11 !== 0: the sample gave it a workspace id.
    const result = await verifyAfter((db) =>
      db.exec(`update audit set workspace_id = ${value} where idx = 4321`),
    );
    expect(result).toMatchObject({
      ok: false,
      index: 4321,
      reason: expect.stringMatching(/modified/),
    });
  });

  it.each(K)('detects the deletion of entry %i', async (k) => {
    const result = await verifyAfter((db) => db.exec(`delete from audit where idx = ${k}`));
    expect(result).toMatchObject({
      ok: false,
      index: k,
      reason: `entry ${k} is missing: deleted`,
    });
  });

  it('detects a deletion hidden by renumbering the later entries', async () => {
    const result = await verifyAfter((db) => {
      db.exec('delete from audit where idx = 4321');
      db.exec('update audit set idx = -(idx - 1) where idx > 4321');
      db.exec('update audit set idx = -idx where idx < 0');
    });
    expect(result).toMatchObject({
      ok: false,
      index: 4321,
      reason: expect.stringMatching(/deleted and later entries renumbered/),
    });
  });

  it.each(K)('detects entries %i and the next one swapped', async (k) => {
    const result = await verifyAfter((db) => {
      db.exec(`update audit set idx = -1 where idx = ${k}`);
      db.exec(`update audit set idx = ${k} where idx = ${k + 1}`);
      db.exec(`update audit set idx = ${k + 1} where idx = -1`);
    });
    expect(result).toMatchObject({
      ok: false,
      index: k,
      reason: expect.stringMatching(/reordered/),
    });
  });

  // The attacker's best local forgery: make room by renumbering, and hash the forged entry
  // correctly on entry k. Entry k+2 still names entry k as its predecessor, which gives it away.
  it.each(K)('detects a forged entry inserted after entry %i', async (k) => {
    const result = await verifyAfter((db) => {
      makeRoom(db, k);
      insert(db, forge(db, k, k + 1));
    });
    expect(result).toMatchObject({
      ok: false,
      index: k + 1,
      reason: expect.stringMatching(/inserted \(forged\)/),
    });
  });

  // Without renumbering, the only free index between k and k+1 is a fraction (SQLite keeps a
  // REAL in a bigint column when the conversion would lose it).
  it('detects a forged entry inserted with a fractional idx', async () => {
    const result = await verifyAfter((db) => insert(db, forge(db, 4321, 4321.5)));
    expect(result).toMatchObject({
      ok: false,
      index: 4322,
      reason: expect.stringMatching(/^idx 4321.5 is not an integer/),
    });
  });

  // Re-hashing everything after the forgery leaves a consistent chain: only the checkpoint,
  // which lives outside the database, still names the old entry N.
  it('detects an insertion with every later entry re-hashed, through the checkpoint', async () => {
    const result = await verifyAfter((db) => {
      makeRoom(db, 4321);
      insert(db, forge(db, 4321, 4322));
      rehashAfter(db, 4322);
    });
    expect(result).toMatchObject({
      ok: false,
      index: N,
      reason: expect.stringMatching(/differs from the checkpoint/),
    });
  });

  it('detects the last 50 entries cut off, through the checkpoint', async () => {
    const result = await verifyAfter((db) => db.exec(`delete from audit where idx > ${N - 50}`));
    expect(result).toEqual({
      ok: false,
      entries: N - 50,
      index: N - 49,
      reason: `tail truncated: the log ends at entry ${N - 50} but the checkpoint names entry ${N}`,
    });
  });

  it('still detects a cut-off tail after the engine appended more entries', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const dir = await tampered((db) => db.exec(`delete from audit where idx > ${N - 50}`));
    const before = await readFile(join(dir, 'audit.checkpoint'), 'utf8');
    const result = await withLog(dir, async (audit, store) => {
      await store.transaction(async (tx) => {
        for (let n = 0; n < 60; n++) await audit.appendInTx(tx, sample(n));
      });
      await audit.checkpoint();
      return audit.verify();
    });
    // The checkpoint did not follow the rewritten chain, so the evidence survives.
    expect(await readFile(join(dir, 'audit.checkpoint'), 'utf8')).toBe(before);
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('no longer holds unchanged'));
    expect(result).toMatchObject({
      ok: false,
      index: N,
      reason: expect.stringMatching(/checkpoint/),
    });
    errors.mockRestore();
  });

  // Documented limit: deleting the checkpoint file is as easy as rewriting it, so a missing
  // file is reported, not failed, and a cut-off tail then goes unnoticed.
  it('reports a missing checkpoint instead of failing', async () => {
    const dir = await tampered((db) => db.exec(`delete from audit where idx > ${N - 50}`));
    await rm(join(dir, 'audit.checkpoint'));
    const result = await withLog(dir, (audit) => audit.verify());
    expect(result).toMatchObject({ ok: true, entries: N - 50, checkpoint: 'missing' });
  });
});
