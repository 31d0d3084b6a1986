/**
 * Refused keys and rate-limited calls are audited in the server-level log (issue 20, item 7),
 * without the key's secret, and a flood of them leaves a bounded number of entries.
 */
import { describe, expect, it } from 'vitest';
import { openTemp } from '../test-support/temp.js';

const KEY_ID = '0123456789abcdef';
const SECRET = 'S'.repeat(43);
const BAD_KEY = `satchel_${KEY_ID}_${SECRET}`;

async function exported(engine: { exportAudit(): AsyncIterable<string> }): Promise<string> {
  let text = '';
  for await (const line of engine.exportAudit()) text += line;
  return text;
}

describe('auditRefusal', () => {
  it('records a refused key by its public id, never its secret; garbage as anonymous', async () => {
    const { satchel: engine } = await openTemp();
    engine.auditRefusal({
      source: 'rest',
      code: 'UNAUTHENTICATED',
      action: 'GET /v1/workspaces',
      key: BAD_KEY,
    });
    engine.auditRefusal({ source: 'mcp', code: 'UNAUTHENTICATED', action: 'POST /mcp', key: 'x' });
    engine.auditRefusal({
      source: 'rest',
      code: 'RATE_LIMITED',
      action: 'GET /v1/workspaces/ws',
      actor: 'bot',
    });
    const { items } = await engine.listAudit({ server: true, limit: 1000 });
    expect(items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          actor: `key:${KEY_ID}`,
          action: 'GET /v1/workspaces',
          outcome: 'refused',
          code: 'UNAUTHENTICATED',
          workspace: null,
          workspaceId: null,
        }),
        expect.objectContaining({ actor: 'anonymous', action: 'POST /mcp' }),
        expect.objectContaining({ actor: 'bot', code: 'RATE_LIMITED' }),
      ]),
    );
    // Nor in a workspace's audit, and the secret is nowhere in the log.
    const ws = await engine.listAudit({ workspace: 'ws', limit: 1000 });
    expect(ws.items.filter((e) => e.outcome === 'refused')).toEqual([]);
    expect(await exported(engine)).not.toContain(SECRET);
    await expect(engine.verifyAudit()).resolves.toMatchObject({ ok: true });
  });

  it('10,000 bad keys leave a bounded number of entries, then one summary per window', async () => {
    let now = 1_700_000_000_000;
    const { satchel: engine } = await openTemp({
      clock: () => now,
      refusalAudit: { perWindow: 20, windowMs: 60_000 },
    });
    const refused = async () =>
      (await engine.listAudit({ server: true, limit: 1000 })).items.filter(
        (e) => e.outcome === 'refused',
      );
    for (let n = 0; n < 10_000; n++) {
      engine.auditRefusal({
        source: 'rest',
        code: 'UNAUTHENTICATED',
        action: 'GET /v1/workspaces',
        key: `satchel_${n.toString(16).padStart(16, '0')}_${SECRET}`,
      });
    }
    expect(await refused()).toHaveLength(20);
    // The next refusal after the window ends writes the summary of the one before.
    now += 60_000;
    engine.auditRefusal({ source: 'rest', code: 'UNAUTHENTICATED', action: 'GET /v1/x' });
    const after = await refused();
    expect(after).toHaveLength(22);
    expect(after).toContainEqual(
      expect.objectContaining({
        actor: 'satchel',
        action: '9980 more refused (rest)',
        code: 'UNAUTHENTICATED',
        outcome: 'refused',
      }),
    );
  });

  it('windows are per frontend and code; close writes the pending summary', async () => {
    const { satchel: engine, data } = await openTemp({ refusalAudit: { perWindow: 2 } });
    for (let n = 0; n < 5; n++) {
      engine.auditRefusal({ source: 'rest', code: 'UNAUTHENTICATED', action: 'GET /v1/a' });
      engine.auditRefusal({ source: 'mcp', code: 'UNAUTHENTICATED', action: 'POST /mcp' });
      engine.auditRefusal({
        source: 'rest',
        code: 'RATE_LIMITED',
        action: 'GET /v1/b',
        actor: 'x',
      });
    }
    await engine.close();
    const { openSatchel } = await import('../engine/open.js');
    const reopened = await openSatchel({ data });
    try {
      const { items } = await reopened.listAudit({ server: true, limit: 1000 });
      const refused = items.filter((e) => e.outcome === 'refused');
      expect(refused).toHaveLength(9);
      expect(refused.map((e) => e.action)).toEqual(
        expect.arrayContaining([
          '3 more refused (rest)',
          '3 more refused (mcp)',
          '3 more refused (rest)',
        ]),
      );
    } finally {
      await reopened.close();
    }
  });
});
