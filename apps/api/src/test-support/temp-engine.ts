/** Test support: an engine on a fresh temp data directory, with the admin key it created. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSatchel, type SatchelEngine } from '@satchel/core';

export interface TempEngine {
  readonly engine: SatchelEngine;
  readonly adminKey: string;
  /** Closes the engine, then removes its data directory. */
  close(): Promise<void>;
}

export async function openTempEngine(): Promise<TempEngine> {
  const data = await mkdtemp(join(tmpdir(), 'satchel-remote-'));
  const engine = await openSatchel({ data });
  const adminKey = engine.createdAdminKey;
  if (adminKey === null) throw new Error('a fresh data directory must create the admin key');
  return {
    engine,
    adminKey,
    close: async () => {
      await engine.close();
      await rm(data, { recursive: true, force: true });
    },
  };
}
