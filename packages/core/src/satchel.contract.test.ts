/** The Satchel contract on the engine itself: `openSatchel` on a fresh temp data directory. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSatchel } from './engine/open.js';
import { runSatchelContract } from './satchel.contract.js';

runSatchelContract('engine', async () => {
  const data = await mkdtemp(join(tmpdir(), 'satchel-contract-'));
  const engine = await openSatchel({ data });
  const adminKey = engine.createdAdminKey;
  if (adminKey === null) throw new Error('a fresh data directory must create the admin key');
  return {
    adminKey,
    connect: async (key) => engine.as(await engine.authenticate(key)),
    close: async () => {
      await engine.close();
      await rm(data, { recursive: true, force: true });
    },
  };
});
