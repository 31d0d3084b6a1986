import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSatchel } from '../engine/open.js';
import { tempDir } from '../test-support/temp.js';

describe('name probes', () => {
  it('conflicts on hidden names spend a budget per principal (not per key) that refills with its window', async () => {
    let now = Date.parse('2026-12-01T00:00:00Z');
    const engine = await openSatchel({
      data: join(await tempDir(), 'data'),
      clock: () => now,
      nameProbes: { limit: 3, windowSeconds: 60 },
    });
    await engine.createWorkspace('taken');
    await engine.createPrincipal({ name: 'scan' });
    const key = async () =>
      engine.as(await engine.authenticate((await engine.createKey({ principal: 'scan' })).key));
    const first = await key();
    await first.createWorkspace('mine');
    for (let i = 0; i < 5; i++) {
      await expect(first.createWorkspace('mine')).rejects.toMatchObject({ code: 'CONFLICT' });
    }
    for (let i = 0; i < 3; i++) {
      await expect(first.createWorkspace('taken')).rejects.toMatchObject({ code: 'CONFLICT' });
    }
    // A fresh key of the same principal inherits the spent budget; a free name is refused too.
    const second = await key();
    await expect(second.createWorkspace('free-name')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      data: { reason: 'name_probes', retryAfter: 60 },
    });
    now += 30_000;
    await expect(second.createWorkspace('taken')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      data: { retryAfter: 30 },
    });
    now += 30_000;
    expect(await second.createWorkspace('free-name')).toMatchObject({ name: 'free-name' });
    // The admin sees every workspace: its conflicts never count.
    for (let i = 0; i < 5; i++) {
      await expect(engine.createWorkspace('taken')).rejects.toMatchObject({ code: 'CONFLICT' });
    }
    await engine.close();
  });
});
