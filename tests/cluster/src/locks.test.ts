/**
 * Fenced locks across two nodes: 16 workers × 25 lock-protected increments of one counter (100
 * with CLUSTER_LOCK_INCREMENTS=100: a soak of ~2 min), split over two processes that are frozen
 * in turn (SIGSTOP) for longer than the lease, each time just after one of their workers took the
 * lock. Every acknowledged increment counts; every write of a holder that woke up too late is
 * refused.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminKey,
  client,
  dataDir,
  freshSchema,
  type Node,
  postgresUrl,
  startNode,
} from './support.js';

const base = await postgresUrl();
const WORKERS = 16;
const INCREMENTS = Number(process.env.CLUSTER_LOCK_INCREMENTS ?? 25);
const TTL_SECONDS = 1;
const WORKER = fileURLToPath(new URL('./lock-worker.mjs', import.meta.url));

interface Outcome {
  acknowledged: number;
  stale: number;
  errors: string[];
}

describe.skipIf(base === null)('locks across two nodes', () => {
  let cleanup: (() => Promise<void>)[] = [];
  let nodes: Node[] = [];
  let key = '';
  let workers: ChildProcess[] = [];
  let running = true;

  beforeAll(async () => {
    const schema = await freshSchema(base ?? '');
    const data = await dataDir();
    const a = await startNode(data.path, schema.url());
    const b = await startNode(data.path, schema.url());
    nodes = [a, b];
    cleanup = [() => a.stop(), () => b.stop(), data.cleanup, schema.drop];
    key = await adminKey(data.path);
  });

  afterAll(async () => {
    // Even after a timeout: no frozen or running worker outlives the test.
    running = false;
    for (const child of workers) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
    for (const step of cleanup) await step().catch(() => undefined);
  });

  it(`${WORKERS} workers × ${INCREMENTS} increments, holders frozen past their lease`, {
    timeout: 300_000,
  }, async () => {
    const admin = client(key);
    const [a, b] = nodes.map((n) => n.url) as [string, string];
    expect(
      (
        await admin(a, '/v1/workspaces', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'ws' }),
        })
      ).status,
    ).toBe(201);
    expect(
      (await admin(b, '/v1/workspaces/ws/files/counter.txt', { method: 'PUT', body: '0' })).status,
    ).toBe(200);

    const config = {
      nodes: [a, b],
      key,
      workers: WORKERS / 2,
      increments: INCREMENTS,
      ttlSeconds: TTL_SECONDS,
      path: '/counter.txt',
    };
    const processes = [0, 1].map(() =>
      spawn(process.execPath, [WORKER, JSON.stringify(config)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    // Each process says `held` when one of its workers takes the lock: the freezer picks that
    // moment, so every freeze catches a holder (a freeze at a random time often catches none).
    const held = processes.map(() => new EventTarget());
    const outcomes = processes.map(
      (child, i) =>
        new Promise<Outcome>((resolve, reject) => {
          const lines = createInterface({ input: child.stdout as Readable });
          let last = '';
          lines.on('line', (line) => {
            if (line === 'held') held[i]?.dispatchEvent(new Event('held'));
            else last = line;
          });
          // 'close': the process exited and its output was read to the end.
          child.once('close', (code) =>
            code === 0
              ? resolve(JSON.parse(last) as Outcome)
              : reject(new Error(`worker exited ${code}`)),
          );
        }),
    );
    workers = processes;
    // Freeze each process in turn for longer than the lease, while the other goes on.
    let freezes = 0;
    const freezer = (async () => {
      for (let turn = 0; running; turn++) {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        const victim = processes[turn % 2];
        const holds = held[turn % 2];
        if (!running || !victim || !holds || victim.exitCode !== null) continue;
        // The next time it holds the lock, or after 2 s anyway.
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 2000);
          holds.addEventListener('held', () => resolve(clearTimeout(timer)), { once: true });
        });
        if (!running || victim.exitCode !== null) continue;
        victim.kill('SIGSTOP');
        freezes += 1;
        await new Promise((resolve) => setTimeout(resolve, TTL_SECONDS * 1000 + 600));
        victim.kill('SIGCONT');
      }
    })();
    const results = await Promise.all(outcomes).finally(() => {
      running = false;
    });
    await freezer;

    const acknowledged = results.reduce((n, r) => n + r.acknowledged, 0);
    const stale = results.reduce((n, r) => n + r.stale, 0);
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(acknowledged).toBe(WORKERS * INCREMENTS);
    const counter = await admin(a, '/v1/workspaces/ws/files/counter.txt');
    expect(Number(await counter.text())).toBe(acknowledged);
    // Holders froze past their lease while others took the lock: their late writes were refused.
    expect(freezes).toBeGreaterThan(2);
    expect(stale).toBeGreaterThan(0);
  });
});
