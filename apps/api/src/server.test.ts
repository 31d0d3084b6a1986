/** Through a real listening server: streaming in flat memory, concurrency, raw request targets. */
import { createHash, type Hash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, serve } from './serve.js';
import { createHarness, type Harness } from './test-support/harness.js';
import { SseReader } from './test-support/sse.js';

let h: Harness;
let server: RunningServer;

beforeAll(async () => {
  h = await createHarness();
  server = await serve(h.engine, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server.close();
  await h.close();
});

function auth(key = h.keys.admin): Record<string, string> {
  return { Authorization: `Bearer ${key}` };
}

/** `size` pseudo-random bytes in 1 MiB pieces, generated as they are read, hashed on the way. */
function generated(size: number, hash: Hash): Readable {
  const piece = randomBytes(1024 * 1024);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) {
        this.push(null);
        return;
      }
      const chunk = Buffer.from(piece.subarray(0, Math.min(piece.length, size - sent)));
      // Vary each piece, so that the content is not a repetition of one block.
      chunk.writeUInt32BE(sent >>> 0, 0);
      hash.update(chunk);
      sent += chunk.length;
      this.push(chunk);
    },
  });
}

/** PUT through node:http, which honours backpressure (undici's fetch buffers a stream body). */
function upload(target: string, body: Readable) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(`${server.url}${target}`, { method: 'PUT', headers: auth() }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    pipeline(body, req).catch(reject);
  });
}

/** A raw HTTP/1.1 request with the target exactly as given (fetch would normalise it). */
function rawRequest(method: string, target: string, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      `${server.url}${target}`,
      { method, headers: auth(), path: target },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('a real server', () => {
  it('streams a 200 MB PUT and GET without holding the body in memory', async () => {
    const size = 200 * 1024 * 1024;
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    try {
      const sent = createHash('sha256');
      const put = await upload('/v1/workspaces/demo/files/big.bin', generated(size, sent));
      expect(put.status).toBe(200);
      const digest = sent.digest('hex');
      expect(JSON.parse(put.body)).toMatchObject({ hash: digest, size });

      const get = await fetch(`${server.url}/v1/workspaces/demo/files/big.bin`, {
        headers: auth(),
      });
      expect(get.status).toBe(200);
      expect(get.headers.get('Content-Length')).toBe(String(size));
      const received = createHash('sha256');
      let bytes = 0;
      for await (const chunk of get.body ?? []) {
        received.update(chunk);
        bytes += chunk.byteLength;
      }
      expect(bytes).toBe(size);
      expect(received.digest('hex')).toBe(digest);
      expect(get.headers.get('Repr-Digest')).toBe(
        `sha-256=:${Buffer.from(digest, 'hex').toString('base64')}:`,
      );
    } finally {
      clearInterval(sampler);
    }
    // Client and server share this process, so this bounds both; buffering would add ≥ 200 MB.
    const growth = Math.round((peak - before) / 1024 / 1024);
    expect(growth, `peak RSS growth ${growth} MB`).toBeLessThan(100);
  }, 120_000);

  it('serialises 32 concurrent If-Match increments: the final value counts the successes', async () => {
    const url = `${server.url}/v1/workspaces/demo/files/counter.txt`;
    const created = await fetch(url, { method: 'PUT', headers: auth(), body: '0' });
    expect(created.status).toBe(200);
    const increment = async (): Promise<number> => {
      const read = await fetch(url, { headers: auth() });
      const etag = read.headers.get('ETag') ?? '';
      const value = Number(await read.text());
      const write = await fetch(url, {
        method: 'PUT',
        headers: { ...auth(), 'If-Match': etag },
        body: String(value + 1),
      });
      // One key for all 32: a write of the value another worker wrote a moment before answers
      // `unchanged` (a retry's answer, docs/api.md), which a counter counts as the conflict it is.
      const body = (await write.json()) as { unchanged?: boolean };
      return write.status === 200 && body.unchanged === true ? 412 : write.status;
    };
    const statuses = await Promise.all(Array.from({ length: 32 }, increment));
    const successes = statuses.filter((s) => s === 200).length;
    expect(statuses.every((s) => s === 200 || s === 412)).toBe(true);
    expect(successes).toBeGreaterThanOrEqual(1);
    const final = await fetch(url, { headers: auth() });
    expect(Number(await final.text())).toBe(successes);
  });

  it('refuses dot segments in the raw target instead of resolving them', async () => {
    for (const target of [
      '/v1/workspaces/demo/files/a/../b.txt',
      '/v1/workspaces/demo/files/a/%2e%2e/b.txt',
      '/v1/workspaces/demo/files/a/%2E./b.txt',
      '/v1/workspaces/demo/files/./b.txt',
    ]) {
      const res = await rawRequest('PUT', target, 'x');
      expect(res.status, target).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ code: 'INVALID_PATH', reason: 'dot_segment' });
    }
    // Nothing was written anywhere, in particular not at /b.txt.
    const b = await fetch(`${server.url}/v1/workspaces/demo/files/b.txt`, { headers: auth() });
    expect(b.status).toBe(404);
    // Encoded once more, the same characters are a literal name.
    const literal = await rawRequest('PUT', '/v1/workspaces/demo/files/%252e%252e', 'x');
    expect(literal.status).toBe(200);
    expect(JSON.parse(literal.body)).toMatchObject({ path: '/%2e%2e' });
  });

  it('streams changes over SSE and resumes after a disconnect, losing and repeating nothing', async () => {
    await h.engine.createWorkspace('feed');
    const open = async (lastEventId?: string) =>
      new SseReader(
        await fetch(`${server.url}/v1/workspaces/feed/changes`, {
          headers: {
            ...auth(),
            Accept: 'text/event-stream',
            ...(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }),
          },
        }),
      );
    const put = async (name: string) => {
      const res = await fetch(`${server.url}/v1/workspaces/feed/files/${name}`, {
        method: 'PUT',
        headers: auth(),
        body: name,
      });
      expect(res.status).toBe(200);
    };
    const first = await open();
    await put('one.txt');
    const seen = [await first.next()];
    await put('two.txt');
    seen.push(await first.next());
    await first.cancel();
    // Written while nobody listens: the resumed stream must deliver them first.
    await put('three.txt');
    await put('four.txt');
    const second = await open(first.lastEventId);
    await put('five.txt');
    seen.push(...(await second.take(3)));
    await second.cancel();
    const events = seen.map((m) => JSON.parse(m.data) as { path: string; seq: number });
    expect(seen.every((m) => m.event === 'change')).toBe(true);
    expect(events.map((e) => e.path)).toEqual([
      '/one.txt',
      '/two.txt',
      '/three.txt',
      '/four.txt',
      '/five.txt',
    ]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(seen.map((m) => m.id)).toEqual(['1', '2', '3', '4', '5']);
  });
});

describe('closing a server', () => {
  it('ends open change streams and resolves promptly', async () => {
    const running = await serve(h.engine, { port: 0, drainMs: 5_000 });
    const stream = new SseReader(
      await fetch(`${running.url}/v1/workspaces/demo/changes?after=1000000`, {
        headers: { ...auth(), Accept: 'text/event-stream' },
      }),
    );
    const started = Date.now();
    await running.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(stream.next()).rejects.toThrow('ended');
    await expect(fetch(`${running.url}/healthz`)).rejects.toThrow();
  });
});
