/** Rate budgets in one process and merged over one database (two nodes on one SQLite file). */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommitter } from '../store/group-commit.js';
import { MetadataStore } from '../store/metadata/metadata-store.js';
import { openSqlite, SQLITE_DIALECT } from '../store/metadata/sqlite.js';
import { tempDir } from '../test-support/temp.js';
import { RateBudgets } from './rate-budgets.js';

const MINUTE = 60_000;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closing.length > 0) await closing.pop()?.();
});

async function node(file: string, clock: () => number): Promise<RateBudgets> {
  const store = new MetadataStore(openSqlite(file), SQLITE_DIALECT);
  await store.migrate();
  const budgets = new RateBudgets({
    clock,
    shared: { committer: new GroupCommitter(store), syncMs: 60_000 },
  });
  closing.push(
    () => store.close(),
    () => budgets.close(),
  );
  return budgets;
}

describe('RateBudgets', () => {
  it('counts hits per key in fixed windows, and starts again in the next window', () => {
    let now = 10 * MINUTE + 5_000;
    const budgets = new RateBudgets({ clock: () => now });
    for (let i = 0; i < 3; i++) budgets.countHit('k1', MINUTE);
    expect(budgets.countHit('k1', MINUTE)).toEqual({ hits: 4, resetAt: 11 * MINUTE });
    expect(budgets.countHit('k2', MINUTE).hits).toBe(1);
    budgets.uncount('k1', MINUTE);
    expect(budgets.countHit('k1', MINUTE).hits).toBe(4);
    now = 11 * MINUTE;
    expect(budgets.countHit('k1', MINUTE)).toEqual({ hits: 1, resetAt: 12 * MINUTE });
  });

  it('two nodes on one database see each other’s hits after a merge', async () => {
    const file = join(await tempDir('satchel-rates-'), 'meta.db');
    const clock = () => 10 * MINUTE + 1_000;
    const a = await node(file, clock);
    const b = await node(file, clock);
    for (let i = 0; i < 60; i++) a.countHit('key', MINUTE);
    for (let i = 0; i < 40; i++) b.countHit('key', MINUTE);
    await a.sync();
    await b.sync();
    // b merged after a: it knows all 100. a learns b's 40 at its next merge, which it makes
    // once it counts a hit again (an idle node needs no news).
    expect(b.countHit('key', MINUTE).hits).toBe(101);
    expect(a.countHit('key', MINUTE).hits).toBe(61);
    await a.sync();
    expect(a.countHit('key', MINUTE).hits).toBe(102);
    // Other keys and windows are untouched.
    expect(a.countHit('other', MINUTE).hits).toBe(1);
    expect(a.countHit('key', 2 * MINUTE).hits).toBe(1);
  });
});
