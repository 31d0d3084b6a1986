/**
 * `pnpm bench` (after run.ts): a write in this process (A) → `notifications/resources/updated`
 * from an MCP server with the file subscribed (B) on the same data directory. B is `satchel mcp`
 * over stdio (built CLI: another process, woken through the signal file), and an in-process
 * server on a second engine, with the signal file and with the 1 s re-check alone (what every
 * process did before: the baseline). Latency = notification received − write acknowledged.
 * BENCH_WAKE_WRITES writes per round (default 100, a file each, random gaps of 10–100 ms);
 * BENCH_WAKE_ROUNDS rounds (default 3); figures are medians of the rounds.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { openSatchel, type SatchelEngine } from '@satchel/core';
import { createMcpServer } from '../src/server.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const TMP = join(HERE, '..', '.bench-tmp', `wake-${process.pid}`);
const CLI = join(HERE, '..', '..', 'cli', 'dist', 'main.js');
const WORKSPACE = 'bench';

function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer`);
  return value;
}

const WRITES = envInt('BENCH_WAKE_WRITES', 100);
const ROUNDS = envInt('BENCH_WAKE_ROUNDS', 3);
const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.ceil(sorted.length * p) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? Number.NaN;
}

const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** Wake-ups in this process only, re-read every second: every process before the signal file. */
function timerOnlySignals(): NonNullable<Parameters<typeof openSatchel>[0]['signals']> {
  const listeners = new Set<(signal: never) => void>();
  return {
    recheckMs: 1000,
    publish: (signal) => {
      for (const listener of listeners) listener(signal as never);
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => undefined,
  };
}

interface Subscriber {
  readonly client: Client;
  close(): Promise<void>;
}

async function stdioSubscriber(data: string): Promise<Subscriber> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--data', data, '-w', WORKSPACE],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'ignore',
    }),
  );
  return { client, close: () => client.close() };
}

async function memorySubscriber(data: string, timerOnly: boolean): Promise<Subscriber> {
  const engine = await openSatchel({ data, ...(timerOnly ? { signals: timerOnlySignals() } : {}) });
  const server = await createMcpServer(engine, { workspace: WORKSPACE });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await Promise.all([server.connect(b), client.connect(a)]);
  return {
    client,
    close: async () => {
      await client.close();
      await engine.close();
    },
  };
}

/** One round: latencies (ms) of `WRITES` writes by `writer`, heard by `subscriber`. */
async function round(writer: SatchelEngine, subscriber: Subscriber, r: number): Promise<number[]> {
  const { client } = subscriber;
  const uri = (i: number) => `satchel://${WORKSPACE}/wake/r${r}-${i}.txt`;
  const heard = new Map<string, number>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    if (!heard.has(n.params.uri)) heard.set(n.params.uri, now());
  });
  for (let i = 0; i < WRITES; i++) await client.subscribeResource({ uri: uri(i) });
  const acked: number[] = [];
  let state = r + 1;
  for (let i = 0; i < WRITES; i++) {
    await writer.writeFile(WORKSPACE, `/wake/r${r}-${i}.txt`, `${i}`);
    acked.push(now());
    state = (state * 1103515245 + 12345) % 2 ** 31;
    await sleep(10 + (state / 2 ** 31) * 90);
  }
  const deadline = Date.now() + 5000;
  while (heard.size < WRITES && Date.now() < deadline) await sleep(20);
  // Never heard (within 5 s of the last write): counted as infinitely late.
  return acked
    .map((at, i) => (heard.get(uri(i)) ?? Number.POSITIVE_INFINITY) - at)
    .sort((a, b) => a - b);
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: pnpm --filter @satchel/cli... build`);
  const data = join(TMP, 'data');
  await mkdir(data, { recursive: true });
  console.log(
    `\nsatchel mcp wake bench — ${new Date().toISOString()}, Node ${process.version}, ` +
      `${cpus().length} CPUs; ${ROUNDS} rounds of ${WRITES} writes in this process → ` +
      'resources/updated from a server on the same data directory',
  );
  const writer = await openSatchel({ data });
  await writer.createWorkspace(WORKSPACE);
  const sides: Array<{ name: string; open: () => Promise<Subscriber> }> = [
    { name: 'satchel mcp, stdio, signal file', open: () => stdioSubscriber(data) },
    { name: 'in-process server, signal file', open: () => memorySubscriber(data, false) },
    { name: 'in-process server, timer only', open: () => memorySubscriber(data, true) },
  ];
  const p50 = sides.map(() => [] as number[]);
  const p95 = sides.map(() => [] as number[]);
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < sides.length; k++) {
        const index = (r + k) % sides.length;
        const side = sides[index];
        if (!side) continue;
        const subscriber = await side.open();
        try {
          const sorted = await round(writer, subscriber, r * sides.length + index);
          p50[index]?.push(percentile(sorted, 0.5));
          p95[index]?.push(percentile(sorted, 0.95));
          const missed = sorted.filter((ms) => ms === Number.POSITIVE_INFINITY).length;
          console.log(
            `  round ${r + 1} ${side.name.padEnd(32)} p50 ${percentile(sorted, 0.5).toFixed(1)} ms, ` +
              `p95 ${percentile(sorted, 0.95).toFixed(1)} ms${missed > 0 ? `, ${missed} not heard` : ''}`,
          );
        } finally {
          await subscriber.close();
        }
      }
    }
  } finally {
    await writer.close();
    await rm(TMP, { recursive: true, force: true });
  }
  console.log('\n| subscriber (process B) | p50 (ms) | p95 (ms) | target |');
  console.log('|---|---|---|---|');
  sides.forEach((side, i) => {
    console.log(
      `| ${side.name} | ${median(p50[i] ?? []).toFixed(1)} | ${median(p95[i] ?? []).toFixed(1)} | p95 < 100 ms |`,
    );
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
