/**
 * Through a real listening server, clients that misbehave (security issue 20): uploads cut off
 * mid-body, headers trickled, bodies that never come, more uploads at once than a key may run.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
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
