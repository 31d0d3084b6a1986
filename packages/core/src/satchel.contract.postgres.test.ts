/**
 * The Satchel contract on the engine with its metadata in PostgreSQL (a schema of its own,
 * dropped afterwards; content in a temp data directory). Skipped, with one line for the whole
 * run, where no test database is reachable (test-support/postgres.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { openSatchel } from './engine/open.js';
import { runSatchelContract } from './satchel.contract.js';
import { createTestSchema, postgresUrlForTests } from './test-support/postgres.js';

const url = postgresUrlForTests();

describe.skipIf(url === null)('PostgreSQL', () => {
  runSatchelContract('engine on PostgreSQL', async () => {
    const schema = await createTestSchema(url ?? '');
    const data = await mkdtemp(join(tmpdir(), 'satchel-contract-pg-'));
    const engine = await openSatchel({ data, stores: { metadata: schema.config } });
    const adminKey = engine.createdAdminKey;
    if (adminKey === null) throw new Error('a fresh database must create the admin key');
    return {
      adminKey,
      connect: async (key) => engine.as(await engine.authenticate(key)),
      close: async () => {
        await engine.close();
        await schema.drop();
        await rm(data, { recursive: true, force: true });
      },
    };
  });
});
