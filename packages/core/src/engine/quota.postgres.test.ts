/**
 * Quotas across nodes: two engines on one PostgreSQL schema write into one workspace at once, and
 * together they admit exactly what fits (the check runs in each commit, after the schema's write
 * lock, against counters kept in the same transaction). Skipped where no test database is
 * reachable (test-support/postgres.ts).
 */
import { isSatchelError } from '@satchel/client/errors.js';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestSchema, postgresUrlForTests } from '../test-support/postgres.js';
import { tempDir } from '../test-support/temp.js';
import { openSatchel } from './open.js';

const url = postgresUrlForTests();
let closing: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of closing) await step();
  closing = [];
});

/** `n` writes of `size` distinct bytes each from `node`, all at once; the outcomes. */
function writes(node: Satchel, prefix: string, n: number, size: number) {
  return Array.from({ length: n }, (_, i) =>
    node.writeFile('ws', `/${prefix}/${i}.bin`, `${prefix}${i}`.padEnd(size, '.')),
  );
}

describe.skipIf(url === null)('quotas on two engines sharing one PostgreSQL schema', () => {
  it('a burst from both nodes at the limit admits exactly what fits', async () => {
    const schema = await createTestSchema(url ?? '');
    const data = await tempDir('satchel-quota-nodes-');
    const open = () => openSatchel({ data, stores: { metadata: schema.config } });
    const [a, b] = [await open(), await open()];
    closing.push(async () => {
      await Promise.all([a.close(), b.close()]);
      await schema.drop();
    });
    await a.createWorkspace('ws');
    await a.updateWorkspace('ws', { quotaBytes: 25_000, quotaFiles: 100 });
    // 25 writes of 1,000 bytes fit; 60 are tried, half from each node.
    const results = await Promise.allSettled([
      ...writes(a, 'a', 30, 1000),
      ...writes(b, 'b', 30, 1000),
    ]);
    for (const r of results) {
      if (r.status === 'rejected' && !isSatchelError(r.reason, 'QUOTA_EXCEEDED')) throw r.reason;
    }
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(25);
    const usage = await b.getWorkspaceUsage('ws');
    expect(usage).toMatchObject({ currentBytes: 25_000, historyBytes: 25_000, files: 25 });
    expect(
      (await a.list('ws', { recursive: true })).items.filter((i) => i.type === 'file'),
    ).toHaveLength(25);
  });
});
