/**
 * Refused authentication and rate-limited calls reach the server-level audit log (issue 20,
 * item 7): over REST and `/mcp`, with the key's public id at most, and bounded under a flood.
 */
import type { AuditEntryOut } from '@satchel/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './test-support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const UNKNOWN = `satchel_${'ab'.repeat(8)}_${'Q'.repeat(43)}`;

/** The server-level log as an admin reads it over REST. */
async function serverLog(harness: Harness): Promise<AuditEntryOut[]> {
  const res = await harness.request('GET', '/v1/audit?server=true&limit=1000');
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: AuditEntryOut[] }).items;
}

describe('refused calls in the server-level audit', () => {
  it('a missing, an unknown and a revoked key over REST and over /mcp', async () => {
    h = await createHarness({ mcp: async () => new Response('never reached') });
    const revoked = await h.engine.createKey({ principal: 'ed' });
    await h.engine.revokeKey(revoked.info.id);
    expect((await h.request('GET', '/v1/workspaces', { key: null })).status).toBe(401);
    expect((await h.request('GET', '/v1/workspaces/demo', { key: UNKNOWN })).status).toBe(401);
    expect((await h.request('POST', '/mcp', { key: revoked.key, body: {} })).status).toBe(401);
    const refused = (await serverLog(h)).filter((e) => e.outcome === 'refused');
    expect(refused).toEqual([
      expect.objectContaining({
        actor: 'anonymous',
        action: 'GET /v1/workspaces',
        code: 'UNAUTHENTICATED',
        workspace: null,
      }),
      expect.objectContaining({
        actor: `key:${'ab'.repeat(8)}`,
        action: 'GET /v1/workspaces/demo',
        code: 'UNAUTHENTICATED',
      }),
      expect.objectContaining({
        actor: `key:${revoked.info.id}`,
        action: 'POST /mcp',
        code: 'UNAUTHENTICATED',
      }),
    ]);
    const all = JSON.stringify(await serverLog(h));
    expect(all).not.toContain('Q'.repeat(43));
    expect(all).not.toContain(revoked.key.slice(-43));
    // Only admins read it.
    const editor = await h.request('GET', '/v1/audit?server=true', { key: h.keys.editor });
    expect(editor.status).toBe(403);
  });

  it('a rate-limited call, with the principal it came from', async () => {
    h = await createHarness({ rateLimit: { limit: 2, windowSeconds: 60 } });
    const statuses: number[] = [];
    for (let n = 0; n < 3; n++) {
      statuses.push((await h.request('GET', '/v1/workspaces', { key: h.keys.editor })).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(await serverLog(h)).toContainEqual(
      expect.objectContaining({
        actor: 'ed',
        action: 'GET /v1/workspaces',
        outcome: 'refused',
        code: 'RATE_LIMITED',
      }),
    );
  });

  it('10,000 requests with bad keys leave a bounded number of entries', async () => {
    h = await createHarness();
    const harness = h;
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(
        Array.from({ length: 500 }, (_, n) =>
          harness.request('GET', '/v1/workspaces', {
            key: `satchel_${(batch * 500 + n).toString(16).padStart(16, '0')}_${'Q'.repeat(43)}`,
          }),
        ),
      );
    }
    const refused = (await serverLog(h)).filter((e) => e.outcome === 'refused');
    // 20 one by one per window (the default); the rest are one summary when the window ends.
    expect(refused).toHaveLength(20);
  }, 60_000);
});
