/**
 * Failures of a cluster: a node killed with SIGKILL in the middle of writes, and the database
 * unreachable for a while (a TCP proxy between the nodes and PostgreSQL is cut).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  adminKey,
  client,
  dataDir,
  freshSchema,
  type Node,
  outageProxy,
  postgresUrl,
  startNode,
  until,
  via,
} from './support.js';

const base = await postgresUrl();
let cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of cleanup) await step().catch(() => undefined);
  cleanup = [];
});

async function cluster(databaseUrl?: (schemaUrl: (server?: string) => string) => string) {
  const schema = await freshSchema(base ?? '');
  const data = await dataDir();
  cleanup.push(data.cleanup, schema.drop);
  const url = databaseUrl ? databaseUrl(schema.url) : schema.url();
  const a = await startNode(data.path, url);
  const b = await startNode(data.path, url);
  cleanup.unshift(
    () => a.stop(),
    () => b.stop(),
  );
  const admin = client(await adminKey(data.path));
  const made = await admin(a.url, '/v1/workspaces', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'ws' }),
  });
  expect(made.status).toBe(201);
  return { a, b, admin };
}

/** Writers that write new files to `node` until told to stop; returns what was acknowledged. */
function writers(admin: ReturnType<typeof client>, node: () => Node, count: number) {
  const acknowledged = new Map<string, string>();
  const statuses: number[] = [];
  let running = true;
  const done = Promise.all(
    Array.from({ length: count }, async (_, w) => {
      for (let n = 0; running; n++) {
        const path = `/w${w}/${n}.txt`;
        const body = `writer ${w} file ${n}`;
        try {
          const r = await admin(node().url, `/v1/workspaces/ws/files${path}`, {
            method: 'PUT',
            body,
          });
          await r.arrayBuffer();
          statuses.push(r.status);
          if (r.status === 200) acknowledged.set(path, body);
        } catch {
          // The node died under the request: not acknowledged.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    }),
  );
  return {
    acknowledged,
    statuses,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

describe.skipIf(base === null)('cluster failures', () => {
  it('kill -9 of one node under 8 writers: every acknowledged write reads back from the other; fsck and audit clean', async () => {
    const { a, b, admin } = await cluster();
    const load = writers(admin, () => a, 8);
    await until(() => load.acknowledged.size >= 40, 20_000);
    await a.kill();
    await load.stop();
    for (const [path, body] of load.acknowledged) {
      const r = await admin(b.url, `/v1/workspaces/ws/files${path}`);
      expect([path, r.status, await r.text()]).toEqual([path, 200, body]);
    }
    const fsck = (await (await admin(b.url, '/v1/fsck', { method: 'POST' })).json()) as {
      ok: boolean;
    };
    expect(fsck).toMatchObject({ ok: true });
    const audit = (await (await admin(b.url, '/v1/audit/verify')).json()) as { ok: boolean };
    expect(audit).toMatchObject({ ok: true });
  });

  it('the database unreachable: 503 with Retry-After meanwhile, nothing acknowledged lost, service resumes by itself', async () => {
    const target = new URL(base ?? '');
    const proxy = await outageProxy({ host: target.hostname, port: Number(target.port || 5432) });
    cleanup.push(proxy.close);
    const { a, b, admin } = await cluster((schemaUrl) => schemaUrl(via(base ?? '', proxy.port)));
    const load = writers(admin, () => (Math.random() < 0.5 ? a : b), 4);
    await until(() => load.acknowledged.size >= 20, 20_000);

    proxy.down();
    const during = await until(async () => {
      const r = await admin(b.url, '/v1/workspaces/ws/files/during.txt', {
        method: 'PUT',
        body: 'x',
      });
      return r.status === 503 ? r : undefined;
    }, 10_000);
    expect(during.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect(await during.json()).toMatchObject({ code: 'UNAVAILABLE' });
    expect((await fetch(`${a.url}/readyz`)).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 1000));

    proxy.up();
    await until(async () => (await fetch(`${a.url}/readyz`)).status === 200, 15_000);
    await until(async () => (await fetch(`${b.url}/readyz`)).status === 200, 15_000);
    const before = load.acknowledged.size;
    await until(() => load.acknowledged.size > before + 10, 20_000);
    await load.stop();
    expect(load.statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    for (const [path, body] of load.acknowledged) {
      const r = await admin(a.url, `/v1/workspaces/ws/files${path}`);
      expect([path, r.status, await r.text()]).toEqual([path, 200, body]);
    }
  });
});
