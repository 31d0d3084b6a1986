/**
 * Garbage collection on PostgreSQL with two engines on one schema and one blob directory, as
 * two nodes are: one collects while the other writes the same content, and only one collects at
 * a time. Skipped where no test database is reachable (test-support/postgres.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestSchema, postgresUrlForTests } from '../test-support/postgres.js';
import { catFile, tempDir } from '../test-support/temp.js';
import { openSatchel } from './open.js';
import type { SatchelEngine } from './satchel-engine.js';

const url = postgresUrlForTests();
const KEY = randomBytes(32);
let closing: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of closing) await step();
  closing = [];
});

async function twoNodes(): Promise<[SatchelEngine, SatchelEngine]> {
  const schema = await createTestSchema(url ?? '');
  const data = await tempDir('satchel-gc-nodes-');
  const open = () => openSatchel({ data, stores: { metadata: schema.config }, webhookKey: KEY });
  const a = await open();
  const b = await open();
  closing.push(async () => {
    await Promise.all([a.close(), b.close()]);
    await schema.drop();
  });
  await a.createWorkspace('ws');
  return [a, b];
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe.skipIf(url === null)('garbage collection on PostgreSQL, two nodes', () => {
  it('one node collecting while the other writes the same content never removes referenced content', async () => {
    const [a, b] = await twoNodes();
    for (let round = 0; round < 6; round++) {
      const content = Buffer.concat([Buffer.from(`round ${round}`), randomBytes(100_000)]);
      await b.createWorkspace('doomed');
      await b.writeFile('doomed', '/c.bin', content);
      await b.deleteWorkspace('doomed');
      let stop = false;
      const collector = (async () => {
        while (!stop) await a.collectGarbage({ graceSeconds: 0 });
      })();
      await Promise.all(
        Array.from({ length: 4 }, async (_, w) => {
          await b.writeFile('ws', `/r${round}/w${w}.bin`, content);
          await b.writeFile('ws', `/r${round}/own${w}.bin`, randomBytes(80_000));
        }),
      );
      stop = true;
      await collector;
      for (let w = 0; w < 4; w++) {
        expect(sha(await catFile(a, `/r${round}/w${w}.bin`))).toBe(sha(content));
      }
    }
    expect(await a.fsck()).toMatchObject({ ok: true, missing: [], corrupt: [] });
  });

  it('runs on two nodes at once: one collects, the other is told it is running', async () => {
    const [a, b] = await twoNodes();
    const runs = await Promise.allSettled([
      a.collectGarbage({ graceSeconds: 0 }),
      b.collectGarbage({ graceSeconds: 0 }),
      a.collectGarbage({ graceSeconds: 0 }),
      b.collectGarbage({ graceSeconds: 0 }),
    ]);
    expect(runs.some((r) => r.status === 'fulfilled')).toBe(true);
    for (const r of runs) {
      if (r.status === 'rejected') {
        expect(r.reason).toMatchObject({ code: 'CONFLICT', data: { reason: 'gc_running' } });
      }
    }
  });
});
