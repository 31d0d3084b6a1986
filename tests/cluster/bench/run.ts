/**
 * `pnpm bench` (cluster part): HTTP 4 KiB GET and PUT against `satchel serve` on PostgreSQL vs
 * embedded, two PostgreSQL nodes vs one, lock acquire+release across nodes, and database round
 * trips per request (counted by a proxy that reads the PostgreSQL wire protocol).
 */
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import {
  adminKey,
  client,
  dataDir,
  freshSchema,
  type Node,
  postgresUrl,
  startNode,
  via,
} from '../src/support.js';

function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name}: positive integer`);
  return value;
}
const ROUNDS = envInt('BENCH_ROUNDS', 3);
const SECONDS = envInt('BENCH_SECONDS', 5);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const LOCKS = envInt('BENCH_LOCKS', 300);
const SAMPLES = 200;

const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? Number.NaN) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};
const fmt = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toFixed(2));

interface Load {
  rps: number;
  p99: number;
}

async function load(
  urls: readonly string[],
  method: 'GET' | 'PUT',
  key: string,
  body: Buffer,
): Promise<Load> {
  // Connections split over the nodes; their rates add up, the worse p99 counts.
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        url,
        method,
        connections: Math.max(1, Math.round(CONNECTIONS / urls.length)),
        duration: SECONDS,
        headers: { Authorization: `Bearer ${key}` },
        ...(method === 'PUT' ? { body } : {}),
      }),
    ),
  );
  for (const r of results) {
    if (r.non2xx > 0 || r.errors > 0)
      throw new Error(`${method}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  }
  return {
    rps: results.reduce((n, r) => n + r.requests.average, 0),
    p99: Math.max(...results.map((r) => r.latency.p99)),
  };
}

/**
 * A proxy in front of PostgreSQL that counts round trips: client messages that make the server
 * answer (Sync of the extended protocol, Query of the simple one).
 */
async function countingProxy(target: URL): Promise<{
  port: number;
  count: () => number;
  detail: () => Array<[string, number]>;
  close: () => void;
}> {
  let trips = 0;
  // BENCH_TRIPS_DETAIL=1: statements sent, by text (printed with the round trips).
  const detail = process.env.BENCH_TRIPS_DETAIL === '1' ? new Map<string, number>() : null;
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = connect(Number(target.port || 5432), target.hostname);
    sockets.add(inbound).add(outbound);
    let started = false;
    let pending = Buffer.alloc(0);
    inbound.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (!started) {
          if (pending.length < 4) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          pending = pending.subarray(length);
          // SSLRequest (8 bytes) is answered and followed by the startup message again.
          if (length !== 8) started = true;
          continue;
        }
        if (pending.length < 5) break;
        const type = String.fromCharCode(pending[0] ?? 0);
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        if (type === 'S' || type === 'Q') trips += 1;
        if (detail !== null && (type === 'P' || type === 'Q')) {
          // Parse: statement name, then the query text; Query: the text.
          const body = pending.subarray(5, 1 + length);
          const start = type === 'P' ? body.indexOf(0) + 1 : 0;
          const text = body.subarray(start, body.indexOf(0, start)).toString('utf8');
          detail.set(text, (detail.get(text) ?? 0) + 1);
        }
        pending = pending.subarray(1 + length);
      }
      outbound.write(chunk);
    });
    outbound.on('data', (chunk) => inbound.write(chunk));
    for (const s of [inbound, outbound]) s.on('error', () => undefined);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    count: () => trips,
    detail: () => {
      const out = detail === null ? [] : [...detail];
      detail?.clear();
      return out;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

async function main(): Promise<void> {
  const base = await postgresUrl();
  if (base === null) return;
  console.log(
    `satchel cluster bench — ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} CPUs`,
  );
  console.log(
    `${ROUNDS} rounds × ${SECONDS} s, ${CONNECTIONS} connections (split over the nodes), 4 KiB; req/s and p99 are ` +
      'medians of the rounds; sides alternate order each round. Every node and autocannon share this machine.',
  );
  const schema = await freshSchema(base);
  const shared = await dataDir();
  const embeddedDir = await dataDir();
  const nodes: Node[] = [];
  const body = randomBytes(4096);
  try {
    const embedded = await startNode(embeddedDir.path, '');
    const p1 = await startNode(shared.path, schema.url());
    const p2 = await startNode(shared.path, schema.url());
    nodes.push(embedded, p1, p2);
    const keys = { embedded: await adminKey(embeddedDir.path), pg: await adminKey(shared.path) };
    for (const [node, key] of [
      [embedded, keys.embedded],
      [p1, keys.pg],
    ] as const) {
      const c = client(key);
      await c(node.url, '/v1/workspaces', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'bench' }),
      });
      await c(node.url, '/v1/workspaces/bench/files/f.bin', { method: 'PUT', body });
    }
    const file = (n: Node) => `${n.url}/v1/workspaces/bench/files/f.bin`;
    const sides = {
      embedded: { urls: [file(embedded)], key: keys.embedded },
      'pg 1 node': { urls: [file(p1)], key: keys.pg },
      'pg 2 nodes': { urls: [file(p1), file(p2)], key: keys.pg },
    } as const;
    type Side = keyof typeof sides;
    const results: Record<string, Load[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      const order = Object.keys(sides) as Side[];
      if (round % 2) order.reverse();
      for (const method of ['GET', 'PUT'] as const) {
        for (const side of order) {
          const { urls, key } = sides[side];
          const name = `${method} ${side}`;
          results[name] = [...(results[name] ?? []), await load(urls, method, key, body)];
        }
      }
      console.log(`  round ${round + 1}/${ROUNDS} done`);
    }
    const rps = (name: string) => median((results[name] ?? []).map((l) => l.rps));
    const p99 = (name: string) => median((results[name] ?? []).map((l) => l.p99));
    console.log('\n| measure | req/s (median) | p99 ms | rounds (req/s) |\n|---|---|---|---|');
    for (const name of Object.keys(results)) {
      console.log(
        `| ${name} | ${fmt(rps(name))} | ${fmt(p99(name))} | ${(results[name] ?? []).map((l) => fmt(l.rps)).join(', ')} |`,
      );
    }
    for (const method of ['GET', 'PUT']) {
      console.log(
        `  ${method}: pg 1 node / embedded ${(rps(`${method} pg 1 node`) / rps(`${method} embedded`)).toFixed(2)}×, ` +
          `pg 2 nodes / pg 1 node ${(rps(`${method} pg 2 nodes`) / rps(`${method} pg 1 node`)).toFixed(2)}×`,
      );
    }

    // Lock acquire on one node, release on the other.
    const pg = client(keys.pg);
    const times: number[] = [];
    for (let i = 0; i < LOCKS + 20; i++) {
      const start = performance.now();
      const made = await pg(p1.url, '/v1/workspaces/bench/locks', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ path: '/locked.txt', ttlSeconds: 60 }),
      });
      const { id } = (await made.json()) as { id: string };
      await (
        await pg(p2.url, `/v1/workspaces/bench/locks/${id}`, { method: 'DELETE' })
      ).arrayBuffer();
      if (i >= 20) times.push(performance.now() - start);
    }
    console.log(
      `  lock acquire (node A) + release (node B): p50 ${median(times).toFixed(2)} ms over ${LOCKS} (goal < 3 ms)`,
    );

    // Database round trips per request, on a third node behind the counting proxy.
    const proxy = await countingProxy(new URL(base));
    const counted = await startNode(shared.path, schema.url(via(base, proxy.port)));
    nodes.push(counted);
    for (const [method, payload] of [
      ['GET', undefined],
      ['PUT', body],
    ] as const) {
      for (let i = 0; i < 20; i++)
        await (
          await pg(counted.url, '/v1/workspaces/bench/files/rt.bin', { method: 'PUT', body })
        ).arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = proxy.count();
      proxy.detail();
      for (let i = 0; i < SAMPLES; i++) {
        const r = await pg(counted.url, '/v1/workspaces/bench/files/rt.bin', {
          method,
          ...(payload ? { body: payload } : {}),
        });
        await r.arrayBuffer();
      }
      // Audit entries of reads are committed in batches within 100 ms: wait for them.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const trips = (proxy.count() - before) / SAMPLES;
      console.log(
        `  database round trips per ${method} (auth and audit included): ${trips.toFixed(2)} (issue 15: ≤ ${method === 'GET' ? 3 : 8}; issue 13: ≤ ${method === 'GET' ? 2 : 4})`,
      );
      for (const [text, n] of proxy.detail().sort((a, b) => b[1] - a[1])) {
        console.log(`    ${(n / SAMPLES).toFixed(2)}  ${text.replace(/\s+/g, ' ').slice(0, 150)}`);
      }
    }
    proxy.close();
  } finally {
    for (const node of nodes) await node.stop().catch(() => undefined);
    await schema.drop();
    await shared.cleanup();
    await embeddedDir.cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
