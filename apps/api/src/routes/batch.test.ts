/**
 * Batch transfer over real HTTP: sync pushes and pulls many files byte-identical (a manifest of
 * hashes on both sides), a server killed mid-upload leaves no partial file and the next sync
 * sends only what did not land, the hash negotiation reveals nothing of a workspace the key
 * cannot read, and a server without the batch routes is served one file at a time.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { LocalTree, RemoteSatchel, type Satchel, syncOnce } from '@satchel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, serve } from '../serve.js';
import { startChildServer } from '../test-support/child-server.js';
import { openTempEngine, type TempEngine } from '../test-support/temp-engine.js';

const sha = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
/** 1,500 in the suite; `SATCHEL_TEST_SYNC_FILES=10000` runs the full size (~1–2 min). */
const FILES = Number(process.env.SATCHEL_TEST_SYNC_FILES ?? 1500);

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'satchel-batch-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** `count` files in 20 folders, sizes from 10 bytes to ~20 KiB, a few repeated, one of 300 KB. */
async function makeTree(dir: string, count: number): Promise<void> {
  for (let d = 0; d < 20; d++) await mkdir(join(dir, `d${d}`), { recursive: true });
  const writes: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const body =
      i % 50 === 7 ? 'the same content\n' : `${i}:`.padEnd(10 + ((i * 7919) % 20_000), 'x');
    writes.push(writeFile(join(dir, `d${i % 20}`, `f${i}.txt`), body));
  }
  writes.push(writeFile(join(dir, 'big.bin'), Buffer.alloc(300_000, 3)));
  await Promise.all(writes);
}

/** Every file of a local tree (the state folder aside), path → SHA-256. */
async function manifest(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (sub: string): Promise<void> => {
    for (const entry of await readdir(join(dir, sub), { withFileTypes: true })) {
      const rel = sub === '' ? entry.name : `${sub}/${entry.name}`;
      if (rel === '.satchel-sync') continue;
      if (entry.isDirectory()) await walk(rel);
      else out.set(`/${rel}`, sha(await readFile(join(dir, rel))));
    }
  };
  await walk('');
  return out;
}

/** Every file of the workspace, path → SHA-256. */
async function remoteManifest(satchel: Satchel, workspace: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor: string | undefined;
  do {
    const page = await satchel.list(workspace, { recursive: true, limit: 1000, cursor });
    for (const item of page.items) if (item.type === 'file') out.set(item.path, item.hash ?? '');
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

describe('sync over HTTP with batch transfer', () => {
  let opened: TempEngine;
  let server: RunningServer;
  let remote: RemoteSatchel;
  beforeAll(async () => {
    opened = await openTempEngine();
    server = await serve(opened.engine, { port: 0, api: { logFault: () => undefined } });
    remote = new RemoteSatchel({ url: server.url, token: opened.adminKey });
  });
  afterAll(async () => {
    await server.close();
    await opened.close();
  });

  it('pushes and pulls many files byte-identical', { timeout: 600_000 }, async () => {
    await remote.createWorkspace('many');
    const a = join(root, 'push');
    await makeTree(a, FILES);
    const pushed = await syncOnce({
      satchel: remote,
      workspace: 'many',
      batchTransfer: true,
      tree: new LocalTree(a),
    });
    expect(pushed.uploaded).toBe(FILES + 1);
    const b = join(root, 'pull');
    const pulled = await syncOnce({
      satchel: remote,
      workspace: 'many',
      batchTransfer: true,
      tree: new LocalTree(b),
    });
    expect(pulled.downloaded).toBe(FILES + 1);
    const local = await manifest(a);
    expect(local.size).toBe(FILES + 1);
    expect(await manifest(b)).toEqual(local);
    expect(await remoteManifest(remote, 'many')).toEqual(local);
    const again = await syncOnce({
      satchel: remote,
      workspace: 'many',
      batchTransfer: true,
      tree: new LocalTree(b),
    });
    expect(again.uploaded + again.downloaded).toBe(0);
  });

  it('negotiates by hash without revealing content of a workspace the key cannot read', async () => {
    const { engine } = opened;
    for (const name of ['team', 'shared', 'private']) await remote.createWorkspace(name);
    await engine.createPrincipal({ name: 'agent', kind: 'agent' });
    await engine.setMember('team', 'agent', 'editor');
    await engine.setMember('shared', 'agent', 'viewer');
    const sharedText = 'shared content '.repeat(1000);
    const secret = 'secret content '.repeat(1000);
    await remote.writeFile('shared', '/s.txt', sharedText);
    await remote.writeFile('private', '/p.txt', secret);
    const agent = new RemoteSatchel({
      url: server.url,
      token: (await engine.createKey({ principal: 'agent' })).key,
    });
    expect((await agent.haveContent('team', [sha(sharedText), sha(secret)])).have).toEqual([
      sha(sharedText),
    ]);
    const dir = join(root, 'agent');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'from-shared.txt'), sharedText);
    await writeFile(join(dir, 'looks-private.txt'), secret);
    const report = await syncOnce({
      satchel: agent,
      workspace: 'team',
      batchTransfer: true,
      tree: new LocalTree(dir),
    });
    expect(report.uploaded).toBe(2);
    // Only the readable workspace's content went by hash; the secret one travelled in full.
    expect(report.deduplicated).toBe(1);
    expect(report.bytesUp).toBe(Buffer.byteLength(secret));
    expect(await remoteManifest(remote, 'team')).toEqual(await manifest(dir));
  });

  it('talks one file at a time to a server without the batch routes', async () => {
    await remote.createWorkspace('old');
    const calls: string[] = [];
    const oldServer: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      calls.push(url.pathname);
      if (url.pathname.includes('/batch/')) {
        const problem = { code: 'NOT_FOUND', detail: 'no route', route: url.pathname };
        return new Response(JSON.stringify(problem), {
          status: 404,
          headers: { 'Content-Type': 'application/problem+json' },
        });
      }
      return fetch(input, init);
    };
    const old = new RemoteSatchel({ url: server.url, token: opened.adminKey, fetch: oldServer });
    const a = join(root, 'old-push');
    await makeTree(a, 60);
    expect(
      (
        await syncOnce({
          satchel: old,
          workspace: 'old',
          batchTransfer: true,
          tree: new LocalTree(a),
        })
      ).uploaded,
    ).toBe(61);
    const b = join(root, 'old-pull');
    expect(
      (
        await syncOnce({
          satchel: old,
          workspace: 'old',
          batchTransfer: true,
          tree: new LocalTree(b),
        })
      ).downloaded,
    ).toBe(61);
    expect(await manifest(b)).toEqual(await manifest(a));
    expect(calls.filter((p) => p.includes('/batch/')).length).toBeGreaterThan(0);

    // Only small new files: the scan hashed none, so the first batch call is a window's. A new
    // client, which has not yet found the routes missing.
    await remote.createWorkspace('old-small');
    const c = join(root, 'old-small');
    await mkdir(join(c, 's'), { recursive: true });
    for (let i = 0; i < 30; i++) await writeFile(join(c, 's', `f${i}.txt`), `small ${i}\n`);
    const before = calls.length;
    const small = await syncOnce({
      satchel: new RemoteSatchel({ url: server.url, token: opened.adminKey, fetch: oldServer }),
      workspace: 'old-small',
      batchTransfer: true,
      tree: new LocalTree(c),
    });
    expect(small).toMatchObject({ uploaded: 30, retry: 0 });
    expect(calls.slice(before).filter((p) => p.includes('/batch/')).length).toBeGreaterThan(0);
    expect(await remoteManifest(remote, 'old-small')).toEqual(await manifest(c));
  });
});

/**
 * A fetch that counts what goes up: the requests, the bytes of upload bodies, and the files a
 * batch upload's answer names (one answer line per file the server received).
 */
function countingFetch() {
  const count = { requests: [] as string[], uploadBytes: 0, uploadEntries: 0 };
  const counting: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    count.requests.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    const upload = url.pathname.endsWith('/batch/upload');
    let body = init?.body;
    if (upload && body instanceof ReadableStream) {
      body = body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            count.uploadBytes += chunk.byteLength;
            controller.enqueue(chunk);
          },
        }),
      );
    }
    const res = await fetch(input, body === init?.body ? init : { ...init, body });
    if (upload && res.ok) {
      const lines = (await res.clone().text()).split('\n').filter((l) => l && l !== '{"end":true}');
      count.uploadEntries += lines.length;
    }
    return res;
  };
  return { count, fetch: counting };
}

describe('a server killed in the middle of an upload', () => {
  it('acknowledges no partial file, and the next sync sends only what did not land', {
    timeout: 600_000,
  }, async () => {
    const data = join(root, 'killed-data');
    const dir = join(root, 'killed-tree');
    await makeTree(dir, FILES);
    const local = await manifest(dir);
    const sizes = new Map<string, number>();
    for (const path of local.keys()) sizes.set(path, (await readFile(join(dir, path))).byteLength);
    let child = await startChildServer(data);
    const admin = new RemoteSatchel({ url: child.url, token: child.key });
    await admin.createWorkspace('w');
    /**
     * A tree that, once half of the files are read for the upload (the scan reads none: they
     * are new to both sides), waits until a group of them has landed (at most 20 s), then kills
     * the server (SIGKILL).
     */
    class KillingTree extends LocalTree {
      reads = 0;
      override async *read(path: string): AsyncGenerator<Uint8Array> {
        if (++this.reads === Math.floor(FILES / 2)) {
          const until = Date.now() + 20_000;
          while (Date.now() < until) {
            const page = await admin.list('w', { recursive: true, limit: 1 }).catch(() => null);
            if (page?.items.some((item) => item.type === 'file')) break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          await child.kill();
        }
        yield* super.read(path);
      }
    }
    const first = syncOnce({ satchel: admin, workspace: 'w', tree: new KillingTree(dir) });
    await expect(first).rejects.toThrow();
    child = await startChildServer(data);
    try {
      const { count, fetch: counting } = countingFetch();
      const again = new RemoteSatchel({ url: child.url, token: child.key, fetch: counting });
      const landed = await remoteManifest(again, 'w');
      // Whatever landed is whole: every file there has the content of the tree's file.
      for (const [path, hash] of landed) expect(hash).toBe(local.get(path));
      expect(landed.size).toBeGreaterThan(0);
      expect(landed.size).toBeLessThan(local.size);
      const report = await syncOnce({ satchel: again, workspace: 'w', tree: new LocalTree(dir) });
      const missing = [...local.keys()].filter((path) => !landed.has(path));
      const landedHashes = new Set(landed.values());
      // Content the workspace has goes by hash; the rest in full, once per file — or by hash
      // too when a file of the same content landed earlier in this upload (its window asked
      // after that one had committed).
      const fresh = missing.filter((path) => !landedHashes.has(local.get(path) ?? ''));
      const freshBytes = fresh.reduce((sum, path) => sum + (sizes.get(path) ?? 0), 0);
      const firstOfEach = new Map(fresh.map((path) => [local.get(path), path]));
      const uniqueBytes = [...firstOfEach.values()].reduce((s, p) => s + (sizes.get(p) ?? 0), 0);
      expect(report.uploaded).toBe(missing.length);
      expect(report.deduplicated).toBeGreaterThanOrEqual(missing.length - fresh.length);
      expect(report.deduplicated).toBeLessThanOrEqual(missing.length - firstOfEach.size);
      expect(report.bytesUp).toBeGreaterThanOrEqual(uniqueBytes);
      expect(report.bytesUp).toBeLessThanOrEqual(freshBytes);
      // On the wire: only the missing files were sent (one answer each), their bytes plus the
      // archive's headers (at most 2 KiB a file) — none of what landed before the kill.
      expect(count.uploadEntries).toBe(missing.length);
      expect(count.uploadBytes).toBeGreaterThanOrEqual(report.bytesUp);
      expect(count.uploadBytes).toBeLessThanOrEqual(freshBytes + 2048 * missing.length);
      // One request per 2000 files (the client's batch size).
      const uploads = count.requests.filter((r) => r.endsWith('/batch/upload')).length;
      expect(uploads).toBe(Math.ceil(missing.length / 2000));
      expect(await remoteManifest(again, 'w')).toEqual(local);
    } finally {
      await child.kill();
    }
  });
});

describe('a server killed in the middle of a download', () => {
  // At the 700th file: one group of 512 flushed, the next half full, the second request asked
  // for already. At the 1,001st, the second request's first: the first request's last group
  // (files 513 to 1,000) is still flushing, held until after the kill; the failure waits for
  // that flush, and those files count.
  it.each([
    { at: 700, whole: 512 },
    { at: 1001, whole: 1000 },
  ])(
    'leaves no file partial, and the next sync brings the rest (killed at file $at)',
    {
      timeout: 600_000,
    },
    async ({ at, whole }) => {
      const data = join(root, `killed-download-data-${at}`);
      const source = join(root, `killed-download-source-${at}`);
      await makeTree(source, FILES);
      const local = await manifest(source);
      let child = await startChildServer(data);
      const admin = new RemoteSatchel({ url: child.url, token: child.key });
      await admin.createWorkspace('d');
      await syncOnce({ satchel: admin, workspace: 'd', tree: new LocalTree(source) });
      let killed: () => void = () => undefined;
      const dead = new Promise<void>((resolve) => {
        killed = resolve;
      });
      /**
       * A tree that kills the server (SIGKILL) as the `at`th file arrives; a group whose flush
       * starts just before (its last file the one before) is flushed only once the server is
       * dead, and a moment later.
       */
      class KillingTree extends LocalTree {
        added = 0;
        /** Groups whose flush started and has not ended. */
        flushing = 0;
        override writeGroup(): ReturnType<LocalTree['writeGroup']> {
          const inner = super.writeGroup();
          const tree = this;
          return {
            get size() {
              return inner.size;
            },
            get bytes() {
              return inner.bytes;
            },
            async add(path, content) {
              if (++tree.added === at) {
                await child.kill();
                killed();
              }
              return inner.add(path, content);
            },
            commit: async () => {
              tree.flushing++;
              try {
                if (tree.added === at - 1) {
                  await dead;
                  await delay(100);
                }
                return await inner.commit();
              } finally {
                tree.flushing--;
              }
            },
            discard: () => inner.discard(),
          };
        }
      }
      const dir = join(root, `killed-download-tree-${at}`);
      const killing = new KillingTree(dir);
      const first = syncOnce({ satchel: admin, workspace: 'd', tree: killing });
      await expect(first).rejects.toThrow();
      // No flush is left running behind the failure.
      expect(killing.flushing).toBe(0);
      // What is there is whole, and named as in the workspace: no partial or temporary file.
      const landed = await manifest(dir);
      expect(landed.size).toBeGreaterThanOrEqual(whole);
      expect(landed.size).toBeLessThan(local.size);
      for (const [path, hash] of landed) expect(hash).toBe(local.get(path));
      child = await startChildServer(data);
      try {
        const again = new RemoteSatchel({ url: child.url, token: child.key });
        const report = await syncOnce({ satchel: again, workspace: 'd', tree: new LocalTree(dir) });
        expect(report.downloaded).toBe(local.size - landed.size);
        expect(report.uploaded).toBe(0);
        expect(await manifest(dir)).toEqual(local);
      } finally {
        await child.kill();
      }
    },
  );
});
