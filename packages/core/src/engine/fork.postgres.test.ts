/**
 * Fork and merge on PostgreSQL: the same scenarios as fork.test.ts, on a fresh schema. Skipped
 * where no test database is reachable (test-support/postgres.ts).
 */
import { afterEach, describe, it } from 'vitest';
import { divergeAndMerge, sharesContent } from '../test-support/fork-scenarios.js';
import { createTestSchema, postgresUrlForTests } from '../test-support/postgres.js';
import { tempDir } from '../test-support/temp.js';
import { openSatchel } from './open.js';
import type { SatchelEngine } from './satchel-engine.js';

const url = postgresUrlForTests();
let closing: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of closing) await step();
  closing = [];
});

async function open(): Promise<{ satchel: SatchelEngine; data: string }> {
  const schema = await createTestSchema(url ?? '');
  const data = await tempDir('satchel-fork-pg-');
  const satchel = await openSatchel({ data, stores: { metadata: schema.config } });
  closing.push(async () => {
    await satchel.close();
    await schema.drop();
  });
  await satchel.createWorkspace('ws');
  return { satchel, data };
}

describe.skipIf(url === null)('fork and merge on PostgreSQL', () => {
  it('fork → diverge both sides → merge: clean paths merged, conflicts kept, nothing lost, one seq', async () => {
    await divergeAndMerge((await open()).satchel);
  });

  it('shares content: no new blob files, and GC after deleting the source keeps it', async () => {
    const { satchel, data } = await open();
    await sharesContent(satchel, data);
  });
});
