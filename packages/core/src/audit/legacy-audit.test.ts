/**
 * A data directory whose audit log was written before workspace ids were recorded (migration
 * 0006): it still verifies, its entries stay with the workspace that made them, and an id added
 * to one of them afterwards shows as tampering.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AUDIT_CHECKPOINT_FILE, DATABASE_FILE, openSatchel } from '../engine/open.js';
import { tempDir } from '../test-support/temp.js';
import { GENESIS_HASH, legacyEntryHash } from './audit-log.js';

/** The tables migrations before 0006 create (an FTS table's shadow tables go with it). */
const INITIAL_TABLES = new Set([
  'meta',
  'workspaces',
  'blobs',
  'versions',
  'entries',
  'principals',
  'api_keys',
  'members',
  'locks',
  'transfers',
  'audit',
  'webhooks',
  'webhook_deliveries',
  'webhook_attempts',
  'passages',
  'search_state',
  'kysely_migration',
  'kysely_migration_lock',
]);

interface Row {
  idx: number;
  time: number;
  actor: string;
  session: string | null;
  action: string;
  workspace: string | null;
  path: string | null;
  seq: number | null;
  outcome: 'ok' | 'refused' | 'error';
  code: string | null;
}

/**
 * Turns the data directory back into what a release before 0006 wrote: no workspace_id column,
 * entries hashed without it, 0006 (and what came after) not applied. Opening it again runs the
 * real migrations.
 */
async function writtenBefore0006(data: string): Promise<void> {
  let head: { idx: number; hash: string } | null = null;
  const db = new BetterSqlite3(join(data, DATABASE_FILE));
  try {
    const triggers = db
      .prepare("select name, sql from sqlite_master where type = 'trigger' and tbl_name = 'audit'")
      .all() as Array<{ name: string; sql: string }>;
    for (const { name } of triggers) db.exec(`drop trigger ${name}`);
    db.exec('drop index audit_by_workspace_id');
    db.exec('alter table audit drop column workspace_id');
    db.exec("delete from meta where key = 'audit_workspace_id_from'");
    // Later migrations go too: they run again, in order, after 0006. Every table but the
    // initial schema's is theirs (with its indexes and triggers).
    const tables = db
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
      .all() as Array<{ name: string }>;
    for (const { name } of tables) {
      if (!INITIAL_TABLES.has(name.replace(/_fts(_\w+)?$/, ''))) db.exec(`drop table ${name}`);
    }
    // 0012's usage triggers live on entries and versions, which stay.
    const usage = db
      .prepare("select name from sqlite_master where type = 'trigger' and name like '%_usage_%'")
      .all() as Array<{ name: string }>;
    for (const { name } of usage) db.exec(`drop trigger ${name}`);
    db.exec("delete from kysely_migration where name >= '0006'");
    const rows = db.prepare('select * from audit order by idx').all() as Row[];
    const update = db.prepare('update audit set prev_hash = ?, hash = ? where idx = ?');
    let prev = GENESIS_HASH;
    for (const row of rows) {
      const hash = legacyEntryHash(prev, { ...row, workspaceId: null });
      update.run(prev, hash, row.idx);
      prev = hash;
    }
    for (const { sql } of triggers) db.exec(sql);
    const last = rows.at(-1);
    if (last) head = { idx: last.idx, hash: prev };
  } finally {
    db.close();
  }
  if (head) await writeFile(join(data, AUDIT_CHECKPOINT_FILE), `${JSON.stringify(head)}\n`);
}

describe('an audit log written before workspace ids', () => {
  it('verifies, keeps its entries with their workspace, and refuses an id added later', async () => {
    const data = join(await tempDir(), 'data');
    let now = 1_700_000_000_000;
    const clock = () => {
      now += 1000;
      return now;
    };
    let engine = await openSatchel({ data, clock });
    const as = async (name: string) => {
      await engine.createPrincipal({ name, kind: 'user' });
      const { key } = await engine.createKey({ principal: name });
      return key;
    };
    const [aliceKey, bobKey] = [await as('alice'), await as('bob')];
    const alice = engine.as(await engine.authenticate(aliceKey));
    const bob = engine.as(await engine.authenticate(bobKey));
    await alice.createWorkspace('w');
    await alice.writeFile('w', '/old.md', 'old', { session: 'alice-1' });
    await alice.deleteWorkspace('w');
    await bob.createWorkspace('w');
    await bob.writeFile('w', '/before-upgrade.md', 'b');
    await engine.close();
    await writtenBefore0006(data);

    engine = await openSatchel({ data, clock });
    try {
      await expect(engine.verifyAudit()).resolves.toMatchObject({ ok: true });
      const bobNow = engine.as(await engine.authenticate(bobKey));
      await bobNow.writeFile('w', '/after-upgrade.md', 'b');
      const { items } = await bobNow.listAudit({ workspace: 'w', limit: 1000 });
      expect(items.map((e) => e.path)).toEqual(
        expect.arrayContaining(['/before-upgrade.md', '/after-upgrade.md']),
      );
      expect(items.map((e) => e.actor)).not.toContain('alice');
      expect(items.find((e) => e.path === '/before-upgrade.md')?.workspaceId).toBeNull();
      expect(items.find((e) => e.path === '/after-upgrade.md')?.workspaceId).toEqual(
        expect.any(String),
      );
      await expect(engine.verifyAudit()).resolves.toMatchObject({ ok: true });
    } finally {
      await engine.close();
    }

    // Giving an old entry an id (to move it into a workspace's audit) breaks the chain.
    const db = new BetterSqlite3(join(data, DATABASE_FILE));
    const idx = (
      db.prepare("select idx from audit where path = '/old.md' limit 1").get() as { idx: number }
    ).idx;
    db.exec('drop trigger audit_no_update');
    db.prepare("update audit set workspace_id = 'some-id' where idx = ?").run(idx);
    db.close();
    engine = await openSatchel({ data, clock });
    try {
      await expect(engine.verifyAudit()).resolves.toMatchObject({
        ok: false,
        index: idx,
        reason: expect.stringMatching(/modified/),
      });
    } finally {
      await engine.close();
    }
  });
});
