/**
 * `pnpm bench` (api), resume overhead: a BENCH_RESUME_MB (default 200) upload over loopback as
 * a resumable upload, once straight through and once with the connection cut at half and the
 * upload resumed by a new client. Prints the bytes sent after the cut (goal: only the missing
 * part, plus at most one part in flight) and the time of each, and checks the result's hash.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSatchel, RemoteSatchel, type ResumableSource, resumableUpload } from '@satchel/core';
import { pino } from 'pino';
import { serve } from '../src/serve.js';

const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_RESUME_MB ?? 200) * MiB;
const PART = 16 * MiB;

function source(block: Buffer, count: { sent: number }): ResumableSource {
  return {
    size: SIZE,
    async *open(start) {
      for (let at = start; at < SIZE; ) {
        const index = Math.floor(at / MiB);
        const piece = Buffer.from(block);
        piece.writeUInt32BE(index, 0);
        const from = at - index * MiB;
        const n = Math.min(MiB - from, SIZE - at);
        count.sent += n;
        yield piece.subarray(from, from + n);
        at += n;
      }
    },
  };
}

/** A fetch whose PATCH bodies stop (the connection is dropped) once `cutAt` bytes went out. */
function cutting(cutAt: number, count: { sent: number }): typeof fetch {
  return async (input, init) => {
    if (init?.method !== 'PATCH' || !(init.body instanceof ReadableStream)) {
      return fetch(input, init);
    }
    const reader = (init.body as ReadableStream<Uint8Array>).getReader();
    const controller = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (count.sent >= cutAt) {
          controller.abort(new Error('cut'));
          return;
        }
        const next = await reader.read();
        if (next.done) c.close();
        else c.enqueue(next.value);
      },
    });
    return fetch(input, {
      ...init,
      body,
      signal: controller.signal,
      duplex: 'half',
    } as RequestInit);
  };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'satchel-bench-resume-'));
  const engine = await openSatchel({ data: dir, limits: { maxFileSize: 4 * SIZE } });
  const server = await serve(engine, {
    port: 0,
    api: { rateLimit: false, logger: pino({ level: 'silent' }), maxBodyBytes: 4 * SIZE },
  });
  try {
    const key = engine.createdAdminKey ?? '';
    await engine.createWorkspace('bench');
    const block = randomBytes(MiB);
    const hash = createHash('sha256');
    for await (const piece of source(block, { sent: 0 }).open(0)) hash.update(piece);
    const sha256 = hash.digest('hex');

    const straight = { sent: 0 };
    const remote = new RemoteSatchel({ url: server.url, token: key });
    let t = performance.now();
    await resumableUpload(remote, 'bench', '/straight.bin', source(block, straight), {
      sha256,
      partSize: PART,
    });
    const straightMs = performance.now() - t;

    const first = { sent: 0 };
    t = performance.now();
    const cut = new RemoteSatchel({ url: server.url, token: key, fetch: cutting(SIZE / 2, first) });
    await resumableUpload(cut, 'bench', '/resumed.bin', source(block, first), {
      sha256,
      partSize: PART,
      retries: 0,
    }).catch(() => undefined);
    const second = { sent: 0 };
    let resumedAt = 0;
    const info = await resumableUpload(remote, 'bench', '/resumed.bin', source(block, second), {
      sha256,
      partSize: PART,
      onResume: (offset) => {
        resumedAt = offset;
      },
    });
    const resumedMs = performance.now() - t;
    const mb = (n: number) => (n / MiB).toFixed(1);
    console.log(
      `resume overhead, ${mb(SIZE)} MiB upload over loopback (parts of ${mb(PART)} MiB):`,
    );
    console.log(`  straight through: ${straightMs.toFixed(0)} ms`);
    console.log(
      `  cut at ${mb(first.sent)} MiB, resumed at ${mb(resumedAt)} MiB by a new client: ` +
        `${mb(second.sent)} MiB sent after the cut (missing: ${mb(SIZE - resumedAt)} MiB), ` +
        `${resumedMs.toFixed(0)} ms in all`,
    );
    const ok = info.hash === sha256 && second.sent === SIZE - resumedAt;
    console.log(
      `  result ${info.hash === sha256 ? 'byte-identical' : 'DIFFERS'}; ${ok ? 'PASS' : 'FAIL'}`,
    );
    if (!ok) process.exitCode = 1;
  } finally {
    await server.close();
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
