/**
 * The servers of the HTTP benchmark, in a process of their own so that autocannon (in run.ts)
 * does not share their event loop: Satchel (a durable engine on a temp data directory, rate
 * limit off, access logs off); a Hono route on @hono/node-server answering the same bytes behind
 * a constant bearer check; and bare node:http servers returning or accepting the same 4 KiB, one
 * of them writing and fsyncing a file per PUT. Prints one JSON line (`ServersReady`) once they
 * listen; then answers each line on stdin with this process's `process.cpuUsage()` as JSON, so
 * run.ts can charge the CPU a load used to the side that ran it. Runs until killed.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, open, rename, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { openSatchel } from '@satchel/core';
import { Hono } from 'hono';
import { pino } from 'pino';
import { serve } from '../src/serve.js';

export const API_DIR = fileURLToPath(new URL('..', import.meta.url));
const SIZE = 4096;

export interface ServersReady {
  readonly urls: {
    readonly satchel: string;
    readonly hono: string;
    readonly bare: string;
    readonly 'bare+fsync': string;
  };
  /** Admin key of the Satchel server. */
  readonly key: string;
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

/** The bare baseline: GET answers the 4 KiB, PUT reads the body (and, `fsync`, stores it durably). */
function baseline(content: Buffer, durableDir: string | null): Server {
  let n = 0;
  return createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': SIZE });
      res.end(content);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      if (durableDir !== null) {
        // A file per PUT, the careful way: temp file, write, fsync, rename.
        const target = join(durableDir, String(n++ % 1000));
        const file = await open(`${target}.tmp`, 'w');
        await file.write(Buffer.concat(chunks));
        await file.sync();
        await file.close();
        await rename(`${target}.tmp`, target);
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
}

/** The Hono baseline: the framework's own cost, with a constant bearer check and no storage. */
function honoBaseline(content: Buffer, key: string): Server {
  const app = new Hono();
  const expected = `Bearer ${key}`;
  app.use(async (c, next) => {
    if (c.req.header('Authorization') !== expected) return c.text('unauthorized', 401);
    await next();
  });
  app.get('/v1/workspaces/bench/files/*', (c) =>
    c.body(new Uint8Array(content), 200, { 'Content-Type': 'application/octet-stream' }),
  );
  app.put('/v1/workspaces/bench/files/*', async (c) => {
    await c.req.arrayBuffer();
    return c.json({ ok: true });
  });
  return createServer(getRequestListener(app.fetch));
}

async function main(tmp: string): Promise<void> {
  await mkdir(join(tmp, 'fsync'), { recursive: true });
  const content = randomBytes(SIZE);
  await writeFile(join(tmp, 'content.bin'), content);
  const engine = await openSatchel({ data: join(tmp, 'data') });
  await engine.createWorkspace('bench');
  await engine.writeFile('bench', '/f.bin', content);
  const satchel = await serve(engine, {
    port: 0,
    api: { rateLimit: false, logger: pino({ level: 'warn' }) },
  });
  const ready: ServersReady = {
    urls: {
      satchel: satchel.url,
      hono: await listen(honoBaseline(content, engine.createdAdminKey ?? '')),
      bare: await listen(baseline(content, null)),
      'bare+fsync': await listen(baseline(content, join(tmp, 'fsync'))),
    },
    key: engine.createdAdminKey ?? '',
  };
  console.log(JSON.stringify(ready));
  for await (const _ of createInterface({ input: process.stdin })) {
    console.log(JSON.stringify(process.cpuUsage()));
  }
  // The parent closed stdin: done.
  process.exit(0);
}

const tmp = process.env.BENCH_TMP;
if (tmp !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  main(tmp).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
