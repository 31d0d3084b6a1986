/**
 * Through a real listening server, clients that misbehave (security issue 20): uploads cut off
 * mid-body, headers trickled, bodies that never come, more uploads at once than a key may run.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSatchel, type SatchelEngine } from '@satchel/core';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, type ServeOptions, serve } from './serve.js';

interface Running {
  readonly engine: SatchelEngine;
  readonly data: string;
  readonly admin: string;
  readonly server: RunningServer;
  readonly lines: Record<string, unknown>[];
}

let running: Running | undefined;
afterEach(async () => {
  if (running === undefined) return;
  await running.server.close();
  await running.engine.close();
  await rm(running.data, { recursive: true, force: true });
  running = undefined;
});

/** A pino logger at info writing its JSON lines into `lines`. */
function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** A server on a fresh data directory with workspace `demo`, logging into `lines`. */
async function start(options: ServeOptions = {}): Promise<Running> {
  const data = await mkdtemp(join(tmpdir(), 'satchel-abuse-'));
  const engine = await openSatchel({ data });
  const admin = engine.createdAdminKey ?? '';
  await engine.createWorkspace('demo');
  const log = memoryLogger();
  const server = await serve(engine, {
    host: '127.0.0.1',
    port: 0,
    ...options,
    api: { logger: log.logger, ...options.api },
  });
  running = { engine, data, admin, server, lines: log.lines };
  return running;
}

async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Temp files of uploads in progress in the data directory's blob store. */
async function blobTemps(data: string): Promise<string[]> {
  return readdir(join(data, 'blobs', 'tmp'));
}

/** Starts a PUT that declares `declared` bytes, sends `sent` of them, and leaves it open. */
function openUpload(url: string, path: string, key: string, declared: number, sent: number) {
  const req = httpRequest(`${url}/v1/workspaces/demo/files${path}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${key}`, 'Content-Length': String(declared) },
  });
  const response = new Promise<{ status: number; body: string; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      });
      req.on('error', reject);
    },
  );
  response.catch(() => undefined);
  if (sent > 0) req.write(Buffer.alloc(sent, 7));
  else req.flushHeaders();
  return { req, response };
}

describe('a client that disconnects mid-upload', () => {
  it('is logged as a client abort, without a stack, and counted as no 500; no temp file stays', async () => {
    const { engine, data, admin, server, lines } = await start();
    const { req } = openUpload(server.url, '/big.bin', admin, 8 * 1024 * 1024, 1024 * 1024);
    await until(async () => (await blobTemps(data)).length > 0);
    req.destroy();
    await until(() => lines.some((l) => l.msg === 'request' && l.method === 'PUT'));
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain('"stack"');
    const access = lines.find((l) => l.msg === 'request' && l.method === 'PUT');
    expect(access).toMatchObject({ status: 499 });
    expect(lines.some((l) => l.msg === 'client closed the connection')).toBe(true);
    const metrics = await fetch(`${server.url}/metrics`, {
      headers: { Authorization: `Bearer ${admin}` },
    });
    const text = await metrics.text();
    expect(text).not.toMatch(/satchel_http_requests_total\{[^}]*status="500"/);
    await until(async () => (await blobTemps(data)).length === 0);
    await expect(engine.stat('demo', '/big.bin')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

/** Opens a raw connection; resolves with what the server sent once it closes the connection. */
function rawConnection(url: string) {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  const closed = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(received));
    socket.on('error', () => undefined);
  });
  return { socket, closed };
}

describe('slow clients', () => {
  it('closes a connection whose headers are trickled past the header timeout', async () => {
    const { server } = await start({ headerTimeoutSeconds: 1 });
    const { socket, closed } = rawConnection(server.url);
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(`X-Slow-${Date.now()}: 1\r\n`);
    }, 200);
    const started = Date.now();
    try {
      const answer = await Promise.race([
        closed,
        new Promise<string>((r) => setTimeout(() => r('still open'), 6000)),
      ]);
      expect(answer).not.toBe('still open');
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  it('answers 408 to an upload whose body stops arriving, and keeps no temp file', async () => {
    const { engine, data, admin, server, lines } = await start({
      api: { bodyIdleTimeoutSeconds: 1 },
    });
    // Declares 2 GB and sends one piece: the connection and the temp file must not be held.
    const { response } = openUpload(server.url, '/stalled.bin', admin, 2 * 1024 ** 3, 256 * 1024);
    const started = Date.now();
    const answer = await response;
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'INVALID_INPUT' });
    expect(Date.now() - started).toBeLessThan(4000);
    await until(async () => (await blobTemps(data)).length === 0);
    await expect(engine.stat('demo', '/stalled.bin')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
  });

  it('answers 408 to an upload that declares a body and sends none', async () => {
    const { admin, server } = await start({ api: { bodyIdleTimeoutSeconds: 1 } });
    const { response } = openUpload(server.url, '/nothing.bin', admin, 2 * 1024 ** 3, 0);
    expect((await response).status).toBe(408);
  });
});

describe('concurrent uploads per key', () => {
  it('refuses uploads past the cap with 429 and Retry-After; other keys are not affected', async () => {
    const { engine, admin, server } = await start({ api: { maxConcurrentUploads: 2 } });
    await engine.createPrincipal({ name: 'other', kind: 'agent' });
    await engine.setMember('demo', 'other', 'editor');
    const other = (await engine.createKey({ principal: 'other' })).key;

    const open = [1, 2].map((i) => openUpload(server.url, `/open-${i}.bin`, admin, 2048, 1024));
    // Both are in flight once their first bytes are stored.
    await new Promise((r) => setTimeout(r, 300));
    const third = openUpload(server.url, '/third.bin', admin, 10, 0);
    third.req.end(Buffer.alloc(10));
    const refused = await third.response;
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'RATE_LIMITED', limit: 2 });
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);

    const theirs = openUpload(server.url, '/theirs.bin', other, 5, 0);
    theirs.req.end('hello');
    expect((await theirs.response).status).toBe(200);

    // Finishing one frees its place.
    const first = open[0];
    first?.req.end(Buffer.alloc(1024));
    expect((await first?.response)?.status).toBe(200);
    const again = openUpload(server.url, '/again.bin', admin, 5, 0);
    again.req.end('again');
    expect((await again.response).status).toBe(200);
    open[1]?.req.end(Buffer.alloc(1024));
    expect((await open[1]?.response)?.status).toBe(200);
  });
});
