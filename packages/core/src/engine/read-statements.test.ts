/**
 * What a read of one file costs the embedded store: one SQL statement finds the workspace, the
 * caller's role in it, the file's entry and its inline bytes (the audit entry is group-committed
 * apart), after one that asks whether the database changed since the rows the read cache keeps
 * (store/metadata/sqlite-read-cache.ts). And what asking for content by hash costs (a push of
 * 100,000 files by hash asks it three times a file). Counted on better-sqlite3's statements,
 * whatever runs them.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { openTemp, readAll } from '../test-support/temp.js';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3') as typeof import('better-sqlite3');

/** The SQL of every statement better-sqlite3 runs while `fn` does. */
async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const db = new Database(':memory:');
  const proto = Object.getPrototypeOf(db.prepare('select 1')) as Record<string, unknown>;
  db.close();
  const sources: string[] = [];
  const originals = (['run', 'get', 'all', 'iterate'] as const).map((method) => {
    const original = proto[method] as (...args: unknown[]) => unknown;
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      sources.push(this.source);
      return original.apply(this, args);
    };
    return [method, original] as const;
  });
  try {
    await fn();
  } finally {
    for (const [method, original] of originals) proto[method] = original;
  }
  return sources;
}

describe.skipIf(process.env.SATCHEL_TEST_METADATA === 'postgres')('reading one file', () => {
  it('looks up the workspace, the role, the entry and its bytes in one statement', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', 'hello\nworld\n');
    let body = '';
    const read = await statementsOf(async () => {
      body = (await readAll((await satchel.readFile('ws', '/a.txt')).body)).toString();
    });
    expect(body).toBe('hello\nworld\n');
    expect(read).toHaveLength(1);
    expect(read[0]).toMatch(
      /from "workspaces" left join "members".* left join "entries".* left join "blobs"/,
    );
    // Asked again: whether the database changed, then the lookup. The cache first learns the
    // database's version, then keeps the rows of a lookup asked again at that version.
    const again = await statementsOf(() => satchel.readText('ws', '/a.txt', { offset: 2 }));
    expect(again).toHaveLength(2);
    expect(again[0]).toMatch(/data_version.*total_changes/);
    expect(again[1]).toBe(read[0]);
    expect(await statementsOf(() => satchel.readText('ws', '/a.txt'))).toEqual(again);
    // Nothing changed since: the kept rows answer.
    const kept = await statementsOf(() => satchel.readText('ws', '/a.txt', { offset: 2 }));
    expect(kept).toEqual([again[0]]);
    // A missing file is still one lookup, and its NOT_FOUND names it.
    const missing = await statementsOf(() =>
      expect(satchel.readFile('ws', '/nope.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' }),
    );
    expect(missing).toEqual(read);
    // A write drops what was kept: the next read looks again, and sees it.
    await satchel.writeFile('ws', '/a.txt', 'changed');
    const after = await statementsOf(async () => {
      body = (await readAll((await satchel.readFile('ws', '/a.txt')).body)).toString();
    });
    expect(body).toBe('changed');
    expect(after).toEqual(again);
  });

  it('hands each read its own bytes: changing them changes no later read', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', 'hello');
    // Enough reads for the rows to be kept and handed out again (sqlite-read-cache.ts).
    for (let n = 0; n < 6; n++) {
      const { bytes } = await satchel.readFile('ws', '/a.txt');
      expect(Buffer.from(bytes ?? []).toString()).toBe('hello');
      bytes?.fill(0x78);
    }
  });
});

describe.skipIf(process.env.SATCHEL_TEST_METADATA === 'postgres')('content named by hash', () => {
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');

  it('answers each hash in a statement or three, and reads no inline bytes to answer', async () => {
    const { satchel } = await openTemp();
    await satchel.createWorkspace('other');
    for (let i = 0; i < 20; i++) await satchel.createWorkspace(`more-${i}`);
    await satchel.writeFile('ws', '/own.txt', 'own');
    await satchel.writeFile('other', '/theirs.txt', 'theirs');
    await satchel.writeFile('other', '/more.txt', 'more');
    // What each answer asks of the registry and the versions, and whether it lists workspaces
    // (besides finding the one written to, as every call does).
    const ask = async (...hashes: string[]) => {
      const run = await statementsOf(() => satchel.haveContent('ws', hashes));
      const listed = run.some((sql) => /from "workspaces" order by/.test(sql));
      return { content: run.filter((sql) => /"blobs"/.test(sql)), listed };
    };
    // Content nobody stored: the registry says so at once, no workspace is listed.
    const unknown = await ask(sha('nobody'));
    expect(unknown.content).toEqual(['select "hash" from "blobs" where "hash" = ?']);
    expect(unknown.listed).toBe(false);
    // The target's own: the registry, then the target alone.
    const own = await ask(sha('own'));
    expect(own.content).toHaveLength(2);
    expect(own.listed).toBe(false);
    // Another workspace's: the others the caller may read are listed, then asked in one statement.
    const theirs = await ask(sha('theirs'));
    expect(theirs.content).toHaveLength(3);
    expect(theirs.listed).toBe(true);
    // Once they are listed, each further hash of the call is one statement.
    expect((await ask(sha('theirs'), sha('more'), sha('nobody'))).content).toHaveLength(5);
    expect((await satchel.haveContent('ws', [sha('theirs'), sha('nobody')])).have).toEqual([
      sha('theirs'),
    ]);
    // The answers never read the rows' bytes (`select *` of a blob).
    const asked = [...unknown.content, ...own.content, ...theirs.content];
    expect(asked.some((sql) => /select \* from "blobs"/.test(sql))).toBe(false);
  });
});
