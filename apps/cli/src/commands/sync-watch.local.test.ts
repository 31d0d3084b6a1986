/**
 * Watch mode through a live server: two trees, each watched against `satchel serve` over HTTP
 * (RemoteSatchel), an edit in one reaches the other — also across a server restart.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, serve } from '@satchel/api';
import {
  LocalTree,
  openSatchel,
  RemoteSatchel,
  type SatchelEngine,
  watchSync,
} from '@satchel/core';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function eventually(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const contentOf = (path: string) => readFile(path, 'utf8').catch(() => null);

describe('sync --watch through a live server', () => {
  it('propagates an edit between two trees, and resumes after the server restarts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'satchel-watch-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const engine: SatchelEngine = await openSatchel({ data: join(dir, 'data') });
    cleanups.push(() => engine.close());
    await engine.createWorkspace('w');
    const token = engine.createdAdminKey ?? '';
    let server: RunningServer = await serve(engine, {
      port: 0,
      api: { logFault: () => undefined },
    });
    const port = server.port;
    cleanups.push(() => server.close());

    const errors: unknown[] = [];
    const start = async (name: string) => {
      const root = join(dir, name);
      const controller = new AbortController();
      const satchel = new RemoteSatchel({ url: server.url, token });
      let cycles = 0;
      const running = watchSync({
        satchel,
        workspace: 'w',
        tree: new LocalTree(root),
        label: name,
        signal: controller.signal,
        waitSeconds: 1,
        maxBackoffMs: 200,
        onCycle: () => {
          cycles++;
        },
        onError: (e) => errors.push(e),
      });
      cleanups.push(async () => {
        controller.abort();
        await running.catch(() => undefined);
        await satchel.close();
      });
      await eventually(async () => cycles > 0, `${name}'s first cycle`);
      return root;
    };
    const a = await start('a');
    const b = await start('b');

    await writeFile(join(a, 'note.md'), 'written in a\n');
    await eventually(
      async () => (await contentOf(join(b, 'note.md'))) === 'written in a\n',
      'the note in b',
    );
    await writeFile(join(b, 'note.md'), 'edited in b\n');
    await eventually(
      async () => (await contentOf(join(a, 'note.md'))) === 'edited in b\n',
      'the edit in a',
    );

    // The server goes away and comes back on the same port: the watches resume from their cursor.
    await server.close();
    await writeFile(join(a, 'offline.txt'), 'written while the server was down\n');
    await new Promise((r) => setTimeout(r, 300));
    server = await serve(engine, { port, api: { logFault: () => undefined } });
    await eventually(
      async () =>
        (await contentOf(join(b, 'offline.txt'))) === 'written while the server was down\n',
      'the offline write in b',
    );
    expect(errors.length).toBeGreaterThan(0);
    const versions = await engine.listVersions('w', '/note.md');
    expect(versions.items).toHaveLength(2);
  });

  it('follows a workspace deleted and created again: its seqs start over, the watch starts over', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'satchel-watch-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const engine: SatchelEngine = await openSatchel({ data: join(dir, 'data') });
    cleanups.push(() => engine.close());
    await engine.createWorkspace('w');
    for (let i = 0; i < 5; i++) await engine.writeFile('w', `/old-${i}.txt`, `${i}\n`);
    const server = await serve(engine, { port: 0, api: { logFault: () => undefined } });
    cleanups.push(() => server.close());
    const root = join(dir, 'tree');
    const controller = new AbortController();
    const satchel = new RemoteSatchel({ url: server.url, token: engine.createdAdminKey ?? '' });
    const errors: unknown[] = [];
    const running = watchSync({
      satchel,
      workspace: 'w',
      tree: new LocalTree(root),
      label: 'tree',
      signal: controller.signal,
      waitSeconds: 1,
      maxBackoffMs: 200,
      onError: (e) => errors.push(e),
    });
    cleanups.push(async () => {
      controller.abort();
      await running.catch(() => undefined);
      await satchel.close();
    });
    await eventually(async () => (await contentOf(join(root, 'old-4.txt'))) === '4\n', 'old-4');
    // The feed's cursor is now 5; the new workspace's head will be 1.
    await engine.deleteWorkspace('w');
    await engine.createWorkspace('w');
    await engine.writeFile('w', '/new.txt', 'after the re-creation\n');
    await eventually(
      async () => (await contentOf(join(root, 'new.txt'))) === 'after the re-creation\n',
      'the file of the new workspace in the tree',
    );
    expect(errors).toContainEqual(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});
