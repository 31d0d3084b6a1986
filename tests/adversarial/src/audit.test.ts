/**
 * The audit log as an attacker meets it (issue 20, items 6 and 7): a workspace re-created under
 * a deleted one's name (or under a name someone probed) tells its new owner nothing about the
 * old one; bad keys and rate-limited calls are audited at the server level, without secrets,
 * and a flood of them leaves a bounded number of entries.
 */
import type { AuditEntryOut } from '@satchel/core';
import { createMcpHttpHandler } from '@satchel/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './support.js';

const mcp = createMcpHttpHandler();
let world: World;
beforeAll(async () => {
  world = await createWorld({ mcp, rateLimit: { limit: 50, windowSeconds: 60 } });
}, 30_000);
afterAll(async () => {
  await mcp.close();
  await world.close();
});

async function items(res: Response): Promise<AuditEntryOut[]> {
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: AuditEntryOut[] }).items;
}

describe('audit keyed by workspace id (item 6)', () => {
  it("a re-created workspace's new owner reads nothing of the old one, nor of probes", async () => {
    const { request, keys } = world;
    const owner = { key: keys.owner };
    expect(
      (await request('POST', '/v1/workspaces', { ...owner, body: { name: 'reborn' } })).status,
    ).toBe(201);
    const put = await request('PUT', '/v1/workspaces/reborn/files/plans/acquisition.md', {
      ...owner,
      body: 'secret',
      headers: { 'Satchel-Session': 'ow-private-run' },
    });
    expect(put.ok).toBe(true);
    expect((await request('DELETE', '/v1/workspaces/reborn', owner)).ok).toBe(true);
    // Someone probes a name nobody has yet.
    const probe = await request('GET', '/v1/workspaces/unborn/files/probe.md', {
      key: keys.viewer,
      headers: { 'Satchel-Session': 'vi-probe' },
    });
    expect(probe.status).toBe(404);

    const editor = { key: keys.editor };
    for (const name of ['reborn', 'unborn']) {
      expect((await request('POST', '/v1/workspaces', { ...editor, body: { name } })).status).toBe(
        201,
      );
      const log = await items(
        await request('GET', `/v1/workspaces/${name}/audit?limit=1000`, editor),
      );
      const text = JSON.stringify(log);
      for (const leak of [
        'acquisition',
        'ow-private-run',
        'probe.md',
        'vi-probe',
        '"ow"',
        '"vi"',
      ]) {
        expect(text).not.toContain(leak);
      }
      expect(log.map((e) => e.action)).toContain('createWorkspace');
    }
    await expect(world.engine.verifyAudit()).resolves.toMatchObject({ ok: true });
  });
});

describe('refused keys and rate limits in the server-level audit (item 7)', () => {
  it('bad keys over REST and /mcp, a rate-limited call; admin-only; no secrets', async () => {
    const { request, keys } = world;
    for (const kind of ['none', 'garbage', 'revoked', 'expired'] as const) {
      expect((await request('GET', '/v1/workspaces', { key: keys[kind] })).status).toBe(401);
      const init = await request('POST', '/mcp', {
        key: keys[kind],
        body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
        headers: { Accept: 'application/json, text/event-stream' },
      });
      expect(init.status).toBe(401);
    }
    let limited = 0;
    for (let n = 0; n < 60 && limited === 0; n++) {
      const res = await request('GET', '/v1/workspaces', { key: keys.viewer });
      if (res.status === 429) limited += 1;
    }
    expect(limited).toBe(1);

    expect((await request('GET', '/v1/audit?server=true', { key: keys.owner })).status).toBe(403);
    const log = await items(await request('GET', '/v1/audit?server=true&limit=1000'));
    const refused = log.filter((e) => e.outcome === 'refused');
    expect(
      refused.filter((e) => e.action === 'GET /v1/workspaces' && e.code === 'UNAUTHENTICATED'),
    ).toHaveLength(4);
    expect(refused.filter((e) => e.action === 'POST /mcp')).toHaveLength(4);
    expect(refused).toContainEqual(
      expect.objectContaining({ actor: 'vi', code: 'RATE_LIMITED', workspace: null }),
    );
    const text = JSON.stringify(log);
    for (const kind of ['garbage', 'revoked', 'expired'] as const) {
      const secret = keys[kind]?.slice(-20) ?? '';
      expect(text).not.toContain(secret);
    }
  });

  it('a flood of 10,000 bad keys leaves a bounded number of entries', async () => {
    const { request } = world;
    const count = async () =>
      (await items(await request('GET', '/v1/audit?server=true&limit=1000'))).filter(
        (e) => e.outcome === 'refused' && e.code === 'UNAUTHENTICATED',
      ).length;
    const before = await count();
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(
        Array.from({ length: 500 }, () =>
          request('GET', '/v1/workspaces', { key: `satchel_${'f'.repeat(16)}_${'x'.repeat(43)}` }),
        ),
      );
    }
    // At most 20 entries per frontend and code per minute, whatever the rate.
    expect((await count()) - before).toBeLessThanOrEqual(20);
  }, 120_000);
});
