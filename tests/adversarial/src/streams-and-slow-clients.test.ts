/**
 * Long-lived and slow connections an attacker can hold: a change feed must end once its key is
 * revoked; a client trickling its headers is cut off; a pathological grep pattern neither hangs
 * the call nor the server (RE2 has no backtracking; a huge pattern is bounded).
 */
import { connect } from 'node:net';
import { type RunningServer, serve } from '@satchel/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './support.js';

let world: World;
let server: RunningServer;
beforeAll(async () => {
  world = await createWorld({ heartbeatSeconds: 0.2, accessRecheckSeconds: 0.2 });
  server = await serve(world.engine, {
    host: '127.0.0.1',
    port: 0,
    headerTimeoutSeconds: 1,
    api: { rateLimit: false },
  });
});
afterAll(async () => {
  await server.close();
  await world.close();
});

/** Reads an SSE body until `until` matches what arrived, or the stream ends, or `ms` pass. */
async function readSse(
  res: Response,
  until: (text: string) => boolean,
  ms: number,
): Promise<{ text: string; ended: boolean }> {
  const reader = res.body?.getReader();
  if (reader === undefined) throw new Error('an SSE response has a body');
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0 || until(text)) {
      await reader.cancel();
      return { text, ended: false };
    }
    const next = await Promise.race([
      reader.read(),
      new Promise<null>((r) => setTimeout(() => r(null), left)),
    ]);
    if (next === null) continue;
    if (next.done) return { text, ended: true };
    text += decoder.decode(next.value, { stream: true });
  }
}

describe('a change feed after its key is revoked', () => {
  it('ends with an error event and sends nothing written afterwards', async () => {
    const created = await world.engine.createKey({ principal: 'vi' });
    const res = await world.request('GET', '/v1/workspaces/demo/changes?after=1', {
      key: created.key,
      headers: { Accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    await world.engine.revokeKey(created.info.id);
    await world.engine.writeFile('demo', '/after-revoke.md', 'secret');
    const { text, ended } = await readSse(res, () => false, 5000);
    expect(ended).toBe(true);
    expect(text).toContain('UNAUTHENTICATED');
    expect(text).not.toContain('/after-revoke.md');
  });
});

describe('slow clients', () => {
  it('cuts off a client that trickles its headers past the header timeout', async () => {
    const url = new URL(server.url);
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    const closed = new Promise<string>((resolve) => {
      socket.on('data', (d) => {
        answer += d.toString();
      });
      socket.on('close', () => resolve(answer));
      socket.on('error', () => resolve(answer));
    });
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(`X-Slow-${Date.now()}: 1\r\n`);
    }, 200);
    const started = Date.now();
    try {
      const result = await Promise.race([
        closed,
        new Promise<string>((r) => setTimeout(() => r('still open'), 6000)),
      ]);
      expect(result).not.toBe('still open');
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });
});

describe('pathological grep patterns', () => {
  it('answers quickly, and the server keeps serving others meanwhile', async () => {
    await world.engine.writeFile('demo', '/redos.txt', `${'a'.repeat(50_000)}!\n`.repeat(20));
    const patterns = [
      '(a+)+$',
      '(a|aa)+$',
      '(a*)*b',
      '^(([a-z])+.)+[A-Z]([a-z])+$',
      `${'(a?)'.repeat(200)}${'a'.repeat(200)}`,
      `(${'a|'.repeat(5000)}b)`,
      '(?:a{1000}){1000}',
    ];
    for (const pattern of patterns) {
      const started = Date.now();
      const grep = world.request(
        'GET',
        `/v1/workspaces/demo/grep?regex=true&pattern=${encodeURIComponent(pattern)}`,
        { key: world.keys.viewer },
      );
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      const res = await grep;
      expect(res.status, pattern.slice(0, 60)).toBeLessThan(500);
      expect(Date.now() - started, pattern.slice(0, 60)).toBeLessThan(15_000);
      await res.body?.cancel();
    }
  });
});
