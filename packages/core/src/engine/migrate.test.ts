/**
 * `migrateToPostgres` on a real data directory and a real PostgreSQL schema: what the embedded
 * engine held reads back from an engine on PostgreSQL (files, history, keys, audit, search);
 * an interrupted copy continues without duplicates; occupied or foreign targets are refused.
 */
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { rawDatabase } from '../store/metadata/testing.js';
import { openMetadata } from '../store/open-stores.js';
import {
  createTestSchema,
  postgresUrlForTests,
  type TestSchema,
} from '../test-support/postgres.js';
import { tempDir } from '../test-support/temp.js';
import { type MigrateProgress, migrateToPostgres } from './migrate.js';
import { openSatchel } from './open.js';

const url = postgresUrlForTests();

const BIG = Buffer.alloc(200 * 1024, 7); // above the inline threshold: lives in the blob folder

/** A data directory with a bit of everything; returns what the tests check afterwards. */
async function populate(data: string) {
  const engine = await openSatchel({ data, webhookAllow: ['127.0.0.1'] });
  try {
    await engine.createWorkspace('docs');
    await engine.createWorkspace('other');
    const first = await engine.writeFile('docs', '/notes/plan.md', 'the zebra plan, first draft\n');
    await engine.writeFile('docs', '/notes/plan.md', 'the zebra plan, second draft\n');
    await engine.writeFile('docs', '/data/big.bin', BIG);
    await engine.writeFile('docs', '/gone.txt', 'soon deleted');
    await engine.remove('docs', '/gone.txt');
    for (let i = 0; i < 25; i++) await engine.writeFile('other', `/f/${i}.txt`, `file ${i} okapi`);
    await engine.createPrincipal({ name: 'bot', kind: 'agent' });
    const botKey = await engine.createKey({ principal: 'bot', label: 'bot key' });
    await engine.setMember('docs', 'bot', 'editor');
    // A key minted by a key: its parent row must arrive before it.
    const bot = engine.as(await engine.authenticate(botKey.key));
    const childKey = await bot.createKey({ label: 'child', readOnly: true });
    const lock = await engine.acquireLock('docs', { path: '/notes/plan.md', ttlSeconds: 600 });
    await engine.createWebhook('docs', { url: 'http://127.0.0.1:9/hook' });
    await engine.writeFile('docs', '/after-hook.md', 'queued for the webhook');
    await engine.offerTransfer('docs', { to: 'bot' });
    expect((await engine.search('docs', 'zebra')).items.length).toBeGreaterThan(0);
    const audit = await engine.verifyAudit();
    return { firstSeq: first.seq, botKey: botKey.key, childKey: childKey.key, lock, audit };
  } finally {
    await engine.close();
  }
}

/** Row counts per table of the schema, read directly. */
async function counts(schema: TestSchema): Promise<Record<string, number>> {
  const store = await openMetadata(schema.config);
  try {
    const { rows } = await sql<{ table: string; n: number }>`
      select 'versions' as table, count(*) as n from versions
      union all select 'audit', count(*) from audit
      union all select 'api_keys', count(*) from api_keys
      union all select 'passages', count(*) from passages
    `.execute(rawDatabase(store));
    return Object.fromEntries(rows.map((r) => [r.table, Number(r.n)]));
  } finally {
    await store.close();
  }
}

describe.skipIf(url === null)('satchel migrate to PostgreSQL', () => {
  const databaseUrl = url ?? '';

  async function schema(): Promise<TestSchema> {
    return createTestSchema(databaseUrl);
  }

  it('copies everything; an engine on PostgreSQL reads the same files, history, keys and audit', async () => {
    const data = join(await tempDir(), 'data');
    const before = await populate(data);
    const target = await schema();
    try {
      const phases = new Set<string>();
      const report = await migrateToPostgres({
        data,
        target: target.config,
        onProgress: (p) => phases.add(p.phase),
      });
      expect(phases).toEqual(new Set(['scan', 'copy', 'verify']));
      expect(report.resumed).toBe(false);
      expect(report.fsck.ok).toBe(true);
      // The verifyAudit call itself is the last entry.
      expect(report.audit).toMatchObject({
        entries: before.audit.entries + 1,
        checkpoint: 'matched',
      });
      for (const t of report.tables) expect(t.target, t.table).toBe(t.source);
      expect(report.tables.find((t) => t.table === 'blobs')?.source).toBeGreaterThan(0);
      expect(report.copied).toBe(report.tables.reduce((n, t) => n + t.source, 0));

      const pg = await openSatchel({ data, stores: { metadata: target.config } });
      try {
        expect(pg.createdAdminKey).toBeNull();
        expect(await pg.readText('docs', '/notes/plan.md')).toMatchObject({
          text: 'the zebra plan, second draft\n',
        });
        const big = await pg.readFile('docs', '/data/big.bin');
        const chunks: Buffer[] = [];
        for await (const piece of big.body) chunks.push(Buffer.from(piece));
        expect(Buffer.concat(chunks).equals(BIG)).toBe(true);
        const versions = await pg.listVersions('docs', '/notes/plan.md');
        expect(versions.items.map((v) => v.seq)).toContain(before.firstSeq);
        expect((await pg.list('other', { path: '/f' })).items).toHaveLength(25);
        expect(
          (await pg.stat('docs', '/gone.txt').catch((e: unknown) => e)) as object,
        ).toMatchObject({ code: 'NOT_FOUND' });
        // Keys authenticate, with their narrowing; the lock is still held with its token.
        const bot = pg.as(await pg.authenticate(before.botKey));
        expect(await bot.readText('docs', '/notes/plan.md')).toMatchObject({
          info: { seq: 2, author: 'admin' },
        });
        const child = pg.as(await pg.authenticate(before.childKey));
        await expect(child.writeFile('docs', '/x.md', 'x')).rejects.toMatchObject({
          code: 'FORBIDDEN',
        });
        expect(await pg.getLock('docs', before.lock.id)).toMatchObject({
          token: before.lock.token,
        });
        // A new lock's token is above the copied one (the fencing counter came along).
        const next = await pg.acquireLock('docs', { path: '/other.md' });
        expect(next.token).toBeGreaterThan(before.lock.token);
        expect(await pg.listWebhooks('docs')).toHaveLength(1);
        expect(await pg.listTransfers('docs')).toHaveLength(1);
        // Search answers from the copied passages; a new passage gets a new id.
        expect((await pg.search('docs', 'zebra')).items[0]?.citation.path).toBe('/notes/plan.md');
        await pg.writeFile('docs', '/new.md', 'a fresh walrus');
        expect((await pg.search('docs', 'walrus')).items[0]?.citation.path).toBe('/new.md');
        const verified = await pg.verifyAudit();
        expect(verified.ok).toBe(true);
        expect(verified.entries).toBeGreaterThan(before.audit.entries);
      } finally {
        await pg.close();
      }
    } finally {
      await target.drop();
    }
  });

  it('continues an interrupted copy where it stopped, with no duplicates', async () => {
    const data = join(await tempDir(), 'data');
    await populate(data);
    const target = await schema();
    try {
      const controller = new AbortController();
      let pages = 0;
      const stopAfterPages = (p: MigrateProgress) => {
        if (p.phase === 'copy' && ++pages === 12) controller.abort();
      };
      await expect(
        migrateToPostgres({
          data,
          target: target.config,
          pageRows: 3,
          signal: controller.signal,
          onProgress: stopAfterPages,
        }),
      ).rejects.toMatchObject({ name: 'AbortError' });
      const partial = await counts(target);
      expect(partial.audit).toBe(0); // stopped before the audit table

      const report = await migrateToPostgres({ data, target: target.config, pageRows: 3 });
      expect(report.resumed).toBe(true);
      for (const t of report.tables) expect(t.target, t.table).toBe(t.source);
      expect(report.copied).toBeLessThan(report.tables.reduce((n, t) => n + t.source, 0));

      // Run again: the finished target is refused, never copied into twice.
      await expect(migrateToPostgres({ data, target: target.config })).rejects.toMatchObject({
        code: 'CONFLICT',
        data: { reason: 'already_migrated' },
      });
    } finally {
      await target.drop();
    }
  });

  it('refuses a target that holds data, or a migration of another data directory', async () => {
    const dir = await tempDir();
    const one = join(dir, 'one');
    const two = join(dir, 'two');
    await populate(one);
    const other = await openSatchel({ data: two });
    await other.createWorkspace('x');
    await other.close();

    const occupied = await schema();
    const interrupted = await schema();
    try {
      const engine = await openSatchel({ data: ':memory:', stores: { metadata: occupied.config } });
      await engine.close(); // its admin principal is enough to make the database "not empty"
      await expect(migrateToPostgres({ data: one, target: occupied.config })).rejects.toMatchObject(
        {
          code: 'CONFLICT',
          data: { reason: 'target_not_empty' },
        },
      );

      const controller = new AbortController();
      await expect(
        migrateToPostgres({
          data: one,
          target: interrupted.config,
          pageRows: 2,
          signal: controller.signal,
          onProgress: (p) => p.phase === 'copy' && p.done > 4 && controller.abort(),
        }),
      ).rejects.toMatchObject({ name: 'AbortError' });
      await expect(
        migrateToPostgres({ data: two, target: interrupted.config }),
      ).rejects.toMatchObject({ code: 'CONFLICT', data: { reason: 'other_source' } });
      // The source changed since the interrupted run began: continuing would mix two states.
      const again = await openSatchel({ data: one });
      await again.writeFile('docs', '/changed.md', 'changed');
      await again.close();
      await expect(
        migrateToPostgres({ data: one, target: interrupted.config }),
      ).rejects.toMatchObject({ code: 'CONFLICT', data: { reason: 'source_changed' } });
      await expect(
        migrateToPostgres({ data: join(dir, 'none'), target: interrupted.config }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await occupied.drop();
      await interrupted.drop();
    }
  });
});
