/** AuditLog on a real SQLite file: chaining, transactions, group-committed records, checkpoint. */
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSatchelError } from '@satchel/client/errors.js';
import canonicalize from 'canonicalize';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupCommitter } from '../store/group-commit.js';
import { MetadataStore, type MetadataTx } from '../store/metadata/metadata-store.js';
import { openSqlite, SQLITE_DIALECT } from '../store/metadata/sqlite.js';
import { rawDatabase } from '../store/metadata/testing.js';
import { tempDir } from '../test-support/temp.js';
import {
  type AuditEntry,
  type AuditInput,
  AuditLog,
  entryHash,
  GENESIS_HASH,
  legacyEntryHash,
} from './audit-log.js';

const NOW = 1_700_000_000_000;
const closers: Array<() => Promise<void>> = [];

// Registered after temp.ts's hook, so it runs first: stores close before their directory goes.
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
  vi.restoreAllMocks();
});

function input(n: number, over: Partial<AuditInput> = {}): AuditInput {
  return {
    time: NOW + n,
    actor: 'agent-1',
    session: null,
    action: 'readFile',
    workspace: 'ws',
    workspaceId: 'ws-id',
    path: `/f/${n}`,
    seq: null,
    outcome: 'ok',
    code: null,
    ...over,
  };
}

async function openStore(file: string): Promise<MetadataStore> {
  const store = new MetadataStore(openSqlite(file), SQLITE_DIALECT);
  await store.migrate();
  closers.push(() => store.close());
  return store;
}

async function setup(
  options: { flushDelayMs?: number; checkpointDelayMs?: number; dir?: string } = {},
) {
  const dir = options.dir ?? (await tempDir('satchel-audit-'));
  const store = await openStore(join(dir, 'satchel.db'));
  const committer = new GroupCommitter(store);
  let runs = 0;
  const run = <T>(op: (tx: MetadataTx) => Promise<T>): Promise<T> => {
    runs += 1;
    return committer.run(op);
  };
  const checkpointFile = join(dir, 'audit.checkpoint');
  const { flushDelayMs, checkpointDelayMs } = options;
  const audit = new AuditLog({ store, run, checkpointFile, flushDelayMs, checkpointDelayMs });
  // Closed before the store (closers run last-in, first-out), as the engine must do.
  closers.push(() => audit.close());
  return { dir, store, committer, audit, checkpointFile, runs: () => runs };
}

type Setup = Awaited<ReturnType<typeof setup>>;

async function append(s: Setup, count: number, over: Partial<AuditInput> = {}): Promise<void> {
  await s.committer.run(async (tx) => {
    for (let n = 0; n < count; n++) await s.audit.appendInTx(tx, input(n, over));
  });
}

async function readCheckpointFile(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, 'utf8'));
}

describe('AuditLog chain', () => {
  it('links each entry to the previous hash, starting from the genesis hash', async () => {
    const s = await setup();
    const entries: AuditEntry[] = [];
    await s.committer.run(async (tx) => {
      for (let n = 0; n < 3; n++) entries.push(await s.audit.appendInTx(tx, input(n)));
    });
    expect(entries.map((e) => e.idx)).toEqual([1, 2, 3]);
    expect(entries[0]?.prevHash).toBe(GENESIS_HASH);
    expect(entries[1]?.prevHash).toBe(entries[0]?.hash);
    expect(entries[2]?.prevHash).toBe(entries[1]?.hash);
    // The format is a contract (module header): SHA-256 of the previous hash, then JCS.
    const jcs =
      '{"action":"readFile","actor":"agent-1","code":null,"idx":1,"outcome":"ok",' +
      `"path":"/f/0","seq":null,"session":null,"time":${NOW},"workspace":"ws","workspaceId":"ws-id"}`;
    const expected = createHash('sha256').update(GENESIS_HASH).update(jcs).digest('hex');
    expect(entries[0]?.hash).toBe(expected);
    // Entries written before workspace ids (migration 0006) hash the same text without the id.
    const legacy = jcs.replace(',"workspaceId":"ws-id"', '');
    const { workspaceId: _, ...rest } = input(0);
    expect(legacyEntryHash(GENESIS_HASH, { ...rest, workspaceId: null, idx: 1 })).toBe(
      createHash('sha256').update(GENESIS_HASH).update(legacy).digest('hex'),
    );
    expect(await s.audit.verify()).toEqual({
      ok: true,
      entries: 3,
      head: { idx: 3, hash: entries[2]?.hash },
      checkpoint: 'missing',
    });
  });

  it('hashes exactly the RFC 8785 form that canonicalize produces', () => {
    const entries = [
      input(1),
      input(2, { session: 'run "1"\n', path: '/ü/日本/🙂/\u0001\u007f\u2028', seq: 2 ** 53 - 1 }),
      input(3, { actor: '\\', workspace: null, path: null, outcome: 'error', code: 'INTERNAL' }),
      input(4, { time: 0, seq: 0, action: '' }),
    ];
    for (const [i, entry] of entries.entries()) {
      const jcs = canonicalize({ ...entry, idx: i + 1 }) ?? '';
      const expected = createHash('sha256').update(GENESIS_HASH).update(jcs).digest('hex');
      expect(entryHash(GENESIS_HASH, { ...entry, idx: i + 1 })).toBe(expected);
    }
    expect(() => entryHash(GENESIS_HASH, { ...input(5), idx: Number.NaN })).toThrow();
    expect(() => entryHash(GENESIS_HASH, { ...input(5, { path: '/\uD800' }), idx: 5 })).toThrow();
  });

  it('leaves no entry and no gap when the transaction of appendInTx rolls back', async () => {
    const s = await setup();
    const results = await Promise.allSettled([
      s.committer.run((tx) => s.audit.appendInTx(tx, input(1))),
      s.committer.run(async (tx) => {
        await s.audit.appendInTx(tx, input(2));
        throw new Error('mutation failed');
      }),
      s.committer.run((tx) => s.audit.appendInTx(tx, input(3))),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    await expect(
      s.store.transaction(async (tx) => {
        await s.audit.appendInTx(tx, input(4));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const next = await s.committer.run((tx) => s.audit.appendInTx(tx, input(5)));
    expect(next.idx).toBe(3);
    const { items } = await s.audit.list();
    expect(items.map((e) => [e.idx, e.path])).toEqual([
      [1, '/f/1'],
      [2, '/f/3'],
      [3, '/f/5'],
    ]);
    expect((await s.audit.verify()).ok).toBe(true);
  });

  it('extends one chain when two connections append to the same database', async () => {
    const a = await setup();
    const b = await setup({ dir: a.dir });
    // Alternating writers: each must read the head inside its own transaction, not cache it.
    for (let n = 0; n < 10; n++) {
      const s = n % 2 === 0 ? a : b;
      if (n % 3 === 0) await s.audit.record(input(n, { actor: `writer-${n % 2}` }));
      else await s.committer.run((tx) => s.audit.appendInTx(tx, input(n)));
    }
    const result = await b.audit.verify();
    expect(result).toMatchObject({ ok: true, entries: 10, head: { idx: 10 } });
  });

  it('stores hostile strings in a form that still verifies', async () => {
    const s = await setup();
    await s.audit.record(input(1, { path: '/a\uD800b\u0000c', outcome: 'refused', code: 'X' }));
    await s.audit.record(input(2, { path: 'x'.repeat(10_000), outcome: 'refused' }));
    const { items } = await s.audit.list();
    expect(items[0]?.path).toBe('/a\uFFFDb\u0000c');
    expect(items[1]?.path).toHaveLength(4096);
    expect(items[1]?.path?.endsWith('…')).toBe(true);
    expect((await s.audit.verify()).ok).toBe(true);
  });

  it('throws INTERNAL for a malformed entry appended with a mutation', async () => {
    const s = await setup();
    const error = await s.committer
      .run((tx) => s.audit.appendInTx(tx, input(1, { time: 1.5 })))
      .catch((e: unknown) => e);
    expect(isSatchelError(error, 'INTERNAL')).toBe(true);
    expect(await s.store.audit.count()).toBe(0);
  });

  it('refuses a flush delay above 100 ms', async () => {
    const { store } = await setup();
    const make = () =>
      new AuditLog({
        store,
        run: (op) => store.transaction(op),
        checkpointFile: null,
        flushDelayMs: 150,
      });
    expect(make).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});

describe('AuditLog record()', () => {
  it('commits many records in few transactions within about flushDelayMs', async () => {
    const s = await setup({ flushDelayMs: 20 });
    const started = performance.now();
    await Promise.all(Array.from({ length: 500 }, (_, n) => s.audit.record(input(n))));
    const elapsed = performance.now() - started;
    expect(s.runs()).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(15);
    // Generous: the bound under test is the 20 ms wait; the rest is one commit on a busy disk.
    expect(elapsed).toBeLessThan(20 + 500);
    expect(await s.store.audit.count()).toBe(500);
    expect((await s.audit.verify()).ok).toBe(true);
  });

  it('resolves, and logs to stderr, when its commit fails', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { store } = await setup();
    const audit = new AuditLog({
      store,
      run: () => Promise.reject(new Error('disk on fire')),
      checkpointFile: null,
      flushDelayMs: 0,
    });
    await expect(audit.record(input(1))).resolves.toBeUndefined();
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('1 entries'), expect.any(Error));
    expect(await store.audit.count()).toBe(0);
  });

  it('commits queued entries on close, and drops (with a log line) records after it', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const s = await setup({ flushDelayMs: 100 });
    for (let n = 0; n < 3; n++) void s.audit.record(input(n));
    await s.audit.close();
    expect(await s.store.audit.count()).toBe(3);
    expect(await readCheckpointFile(s.checkpointFile)).toMatchObject({ idx: 3 });
    await s.audit.record(input(4));
    expect(await s.store.audit.count()).toBe(3);
    expect(errors).toHaveBeenCalled();
  });
});

describe('audit table', () => {
  it('rejects UPDATE and DELETE in the database itself', async () => {
    const s = await setup();
    await append(s, 3);
    const db = rawDatabase(s.store);
    await expect(sql`update audit set actor = ${'mallory'}`.execute(db)).rejects.toThrow(
      /append-only: update refused/,
    );
    await expect(sql`delete from audit where idx = ${2}`.execute(db)).rejects.toThrow(
      /append-only: delete refused/,
    );
    expect(await s.store.audit.count()).toBe(3);
    expect((await s.audit.verify()).ok).toBe(true);
  });
});

describe('AuditLog list and export', () => {
  it('pages by idx with a cursor and filters by workspace id, or to the server level', async () => {
    const s = await setup();
    await s.committer.run(async (tx) => {
      for (let n = 0; n < 25; n++) {
        const workspace = ['a', 'b', null][n % 3] ?? null;
        const workspaceId = workspace === null ? null : `id-${workspace}`;
        await s.audit.appendInTx(tx, input(n, { workspace, workspaceId }));
      }
    });
    const of = (name: string) =>
      ({ kind: 'workspace', id: `id-${name}`, name, createdAt: 0 }) as const;
    const seen: number[] = [];
    let after = 0;
    for (let page = 0; page < 10; page++) {
      const { items, nextCursor } = await s.audit.list({ after, limit: 5 });
      seen.push(...items.map((e) => e.idx));
      if (nextCursor === null) break;
      after = Number(nextCursor);
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    const a = await s.audit.list({ scope: of('a'), limit: 1000 });
    expect(a.items.map((e) => e.idx)).toEqual([1, 4, 7, 10, 13, 16, 19, 22, 25]);
    expect(a.nextCursor).toBeNull();
    const first = await s.audit.list({ scope: of('b'), limit: 2 });
    expect(first).toMatchObject({ items: [{ idx: 2 }, { idx: 5 }], nextCursor: '5' });
    // Same name, another id (a re-created workspace): none of them.
    const other = await s.audit.list({ scope: { ...of('a'), id: 'id-new' } });
    expect(other.items).toEqual([]);
    const server = await s.audit.list({ scope: { kind: 'server' }, limit: 1000 });
    expect(server.items.map((e) => e.idx)).toEqual([3, 6, 9, 12, 15, 18, 21, 24]);
    for (const bad of [{ limit: 0 }, { limit: 1001 }, { after: -1 }, { after: 1.5 }]) {
      await expect(s.audit.list(bad)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
  });

  it('exports canonical JSON lines that re-verify on their own', async () => {
    const s = await setup();
    await append(s, 1200, { seq: 7, session: 'run-1' });
    let prev = GENESIS_HASH;
    let count = 0;
    for await (const line of s.audit.exportJsonl()) {
      expect(line.endsWith('\n')).toBe(true);
      const entry = JSON.parse(line) as AuditEntry;
      count += 1;
      expect(entry.idx).toBe(count);
      expect(entry.prevHash).toBe(prev);
      expect(entryHash(prev, entry)).toBe(entry.hash);
      prev = entry.hash;
    }
    expect(count).toBe(1200);
  });
});

describe('AuditLog checkpoint', () => {
  it('writes the newest idx and hash atomically, leaving no temp files', async () => {
    const s = await setup({ flushDelayMs: 0 });
    let torn = 0;
    let writing = true;
    const reader = (async () => {
      while (writing) {
        const raw = await readFile(s.checkpointFile, 'utf8').catch(() => null);
        if (raw !== null && !/^\{"idx":\d+,"hash":"[0-9a-f]{64}"\}\n$/.test(raw)) torn += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let n = 0; n < 40; n++) {
      await s.audit.record(input(n));
      // Concurrent calls coalesce; every one of them resolves.
      await Promise.all([s.audit.checkpoint(), s.audit.checkpoint(), s.audit.checkpoint()]);
    }
    writing = false;
    await reader;
    expect(torn).toBe(0);
    const head = (await s.audit.verify()) as { head: unknown; checkpoint: string };
    expect(await readCheckpointFile(s.checkpointFile)).toEqual(head.head);
    expect(head.checkpoint).toBe('matched');
    expect((await readdir(s.dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('close() writes the checkpoint at once instead of waiting out the delay', async () => {
    // A one-shot command (the CLI's `ls`) closes right after its read: a minute's delay would
    // hold its exit, and this test, for that minute.
    const s = await setup({ checkpointDelayMs: 60_000 });
    const recorded = s.audit.record(input(1));
    await s.audit.close();
    await recorded;
    expect(await readCheckpointFile(s.checkpointFile)).toEqual({
      idx: 1,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('does not move a checkpoint that the log no longer matches', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const s = await setup();
    await append(s, 5);
    const forged = `${JSON.stringify({ idx: 2, hash: 'f'.repeat(64) })}\n`;
    await writeFile(s.checkpointFile, forged);
    await append(s, 5);
    await s.audit.checkpoint();
    expect(await readFile(s.checkpointFile, 'utf8')).toBe(forged);
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('no longer holds unchanged'));
    expect(await s.audit.verify()).toMatchObject({ ok: false, index: 2 });
  });

  it('reports an unreadable checkpoint file as index 0', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const s = await setup();
    await append(s, 2);
    await writeFile(s.checkpointFile, 'not json');
    expect(await s.audit.verify()).toMatchObject({ ok: false, entries: 2, index: 0 });
  });
});
