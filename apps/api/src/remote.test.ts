/**
 * RemoteSatchel (core's HTTP client) against a live `serve` on a real data directory: the
 * Satchel contract run for the client over a real socket, agreement with the engine behind the
 * server, and what only a client over a network has (failures, streaming, headers). The engine
 * runs the contract in core (satchel.contract.test.ts); the client over `app.request` in
 * remote-app-request.test.ts.
 */
import { RemoteSatchel, type Satchel, type SatchelEngine, SatchelError } from '@satchel/core';
import { runSatchelContract, type SatchelFixture } from '@satchel/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, serve } from './serve.js';
import { openTempEngine, type TempEngine } from './test-support/temp-engine.js';

/** Quiet: the faults a test provokes on purpose are not worth a stderr line. */
function serveQuietly(engine: SatchelEngine): Promise<RunningServer> {
  return serve(engine, { port: 0, api: { logFault: () => undefined } });
}

async function remoteFixture(): Promise<SatchelFixture> {
  const opened = await openTempEngine();
  const server = await serveQuietly(opened.engine);
  return {
    adminKey: opened.adminKey,
    connect: async (key) => new RemoteSatchel({ url: server.url, token: key }),
    close: async () => {
      await server.close();
      await opened.close();
    },
  };
}

runSatchelContract('RemoteSatchel over HTTP', remoteFixture);

describe('RemoteSatchel', () => {
  let opened: TempEngine;
  let server: RunningServer;
  let remote: RemoteSatchel;
  /** The engine behind the server, acting as the same admin key as `remote`. */
  let direct: Satchel;

  beforeAll(async () => {
    opened = await openTempEngine();
    server = await serveQuietly(opened.engine);
    remote = new RemoteSatchel({ url: server.url, token: opened.adminKey });
    direct = opened.engine.as(await opened.engine.authenticate(opened.adminKey));
    await remote.createWorkspace('same');
    await remote.writeFile('same', '/a/one.txt', 'one\ntwo\n', { session: 's1' });
    await remote.writeFile('same', '/a/one.txt', 'one\n2\n', { message: 'm' });
    await remote.writeFile('same', '/b.bin', new Uint8Array([0, 1, 2]));
    await remote.mkdir('same', '/c');
    await remote.acquireLock('same', { path: '/b.bin' });
  });
  afterAll(async () => {
    await server.close();
    await opened.close();
  });

  it('returns what the engine behind the server returns', async () => {
    const calls: Array<[string, (s: Satchel) => Promise<unknown>]> = [
      ['getWorkspace', (s) => s.getWorkspace('same')],
      ['listWorkspaces', (s) => s.listWorkspaces()],
      ['list', (s) => s.list('same', { recursive: true })],
      ['listVersions', (s) => s.listVersions('same', '/a/one.txt')],
      ['diff', (s) => s.diff('same', '/a/one.txt')],
      ['listChanges', (s) => s.listChanges('same', { after: 1 })],
      ['listLocks', (s) => s.listLocks('same')],
      ['listMembers', (s) => s.listMembers('same')],
      ['listTransfers', (s) => s.listTransfers('same')],
      ['whoami', (s) => s.whoami()],
      ['listPrincipals', (s) => s.listPrincipals()],
      ['listKeys', (s) => s.listKeys({ all: true })],
      ['readText', async (s) => ({ ...(await s.readText('same', '/a/one.txt')), info: null })],
    ];
    for (const [name, call] of calls) {
      expect(await call(remote), name).toEqual(await call(direct));
    }
    for (const path of ['/a/one.txt', '/b.bin', '/c', '/']) {
      expect(await remote.stat('same', path), path).toEqual(await direct.stat('same', path));
    }
    const [head] = (await direct.listAudit({ limit: 1 })).items;
    expect((await remote.listAudit({ limit: 1 })).items[0]).toEqual(head);
  });

  it('stat and readFile carry the whole FileInfo, also of old versions', async () => {
    const [newest, oldest] = (await direct.listVersions('same', '/a/one.txt')).items;
    for (const version of [undefined, newest?.seq, oldest?.seq]) {
      const expected = await direct.stat('same', '/a/one.txt', { version });
      expect(await remote.stat('same', '/a/one.txt', { version })).toEqual(expected);
      const read = await remote.readFile('same', '/a/one.txt', { version });
      read.body.destroy();
      expect(read.info).toEqual(expected);
    }
    expect((await remote.stat('same', '/a/one.txt', { version: oldest?.seq })).session).toBe('s1');
  });

  it('exports the audit log byte for byte as the engine does', async () => {
    const lines = async (s: Satchel, upTo: number) => {
      const out: string[] = [];
      for await (const line of s.exportAudit()) out.push(line);
      return out.slice(0, upTo);
    };
    const local = await lines(direct, 20);
    expect(await lines(remote, local.length)).toEqual(local);
  });

  it('sends a stream as it is produced: a refused upload stops reading its source', async () => {
    const { key } = await remote.createKey({ readOnly: true });
    const readOnly = new RemoteSatchel({ url: server.url, token: key });
    let pulled = 0;
    let released = false;
    async function* endless() {
      const piece = new Uint8Array(1024 * 1024);
      try {
        for (;;) {
          pulled++;
          yield piece;
        }
      } finally {
        released = true;
      }
    }
    await expect(readOnly.writeFile('same', '/never.bin', endless())).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'read_only' },
    });
    // Upload starts before the refusal arrives; it must stop well short of "endless".
    expect(pulled).toBeLessThan(64);
    // …and the source is released (a file stream would be closed).
    expect(released).toBe(true);
  });

  it('reports an error of the upload source as itself, not as a connection failure', async () => {
    async function* failing() {
      yield new Uint8Array(10);
      throw new Error('disk on fire');
    }
    await expect(remote.writeFile('same', '/x.bin', failing())).rejects.toThrow('disk on fire');
    await expect(remote.stat('same', '/x.bin')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reports a server it cannot reach as INTERNAL "cannot reach"', async () => {
    const spare = await serveQuietly(opened.engine);
    await spare.close();
    const gone = new RemoteSatchel({ url: spare.url, token: opened.adminKey });
    const error = await gone.whoami().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SatchelError);
    expect(error).toMatchObject({ code: 'INTERNAL' });
    expect((error as SatchelError).message).toMatch(
      new RegExp(`^cannot reach ${spare.url}: .*ECONNREFUSED`),
    );
  });

  it('reports routes the server lacks as INTERNAL, not as NOT_FOUND', async () => {
    const elsewhere = new RemoteSatchel({ url: `${server.url}/old`, token: opened.adminKey });
    await expect(elsewhere.whoami()).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('does not support GET /v1/whoami'),
    });
  });

  it('writes a batch in one request, bytes as base64, and runs fsck and the export remotely', async () => {
    const sent: Array<{ url: string; body: unknown }> = [];
    const counting = new RemoteSatchel({
      url: server.url,
      token: opened.adminKey,
      fetch: (input, init) => {
        const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
        sent.push({ url: String(input), body });
        return fetch(input, init);
      },
    });
    const infos = await counting.writeFiles('same', [
      { path: '/batch/t.txt', content: 'text' },
      { path: '/batch/b.bin', content: new Uint8Array([0, 255]) },
    ]);
    expect(infos.map((i) => i.size)).toEqual([4, 2]);
    expect(sent).toEqual([
      {
        url: `${server.url}/v1/workspaces/same/batch`,
        body: {
          files: [
            { path: '/batch/t.txt', content: 'text' },
            { path: '/batch/b.bin', content: 'AP8=', encoding: 'base64' },
          ],
        },
      },
    ]);
    expect(await counting.fsck()).toEqual(await direct.fsck());
    const lines: string[] = [];
    for await (const line of counting.exportAudit()) lines.push(line);
    expect(lines.length).toBeGreaterThan(1);
    expect(sent.map((s) => new URL(s.url).pathname).slice(1)).toEqual([
      '/v1/fsck',
      '/v1/audit/export',
    ]);
    await counting.close();
  });

  it('sends its session label and key on every call, and the call’s label over it', async () => {
    const seen: Headers[] = [];
    const labelled = new RemoteSatchel({
      url: `${server.url}/`,
      token: opened.adminKey,
      session: 'agent-7',
      fetch: (input, init) => {
        seen.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    expect(labelled.url).toBe(server.url);
    expect(await labelled.writeFile('same', '/s.txt', 's')).toMatchObject({ session: 'agent-7' });
    expect(await labelled.mkdir('same', '/s', { session: 'own' })).toMatchObject({
      session: 'own',
    });
    expect(seen.map((h) => h.get('Satchel-Session'))).toEqual(['agent-7', 'own']);
    expect(seen[0]?.get('Authorization')).toBe(`Bearer ${opened.adminKey}`);
    // Any label travels, percent-encoded.
    expect(
      await labelled.writeFile('same', '/s.txt', 's', { session: ' ünï 100% ' }),
    ).toMatchObject({ session: ' ünï 100% ' });
    expect(seen[2]?.get('Satchel-Session')).toBe('%20%C3%BCn%C3%AF%20100%25%20');
    await expect(
      labelled.writeFile('same', '/s.txt', 's', { session: 'bad \ud800' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', data: { field: 'session' } });
    expect(seen).toHaveLength(3);
  });

  it('maps answers that are not problem+json by their status', async () => {
    const proxy = (status: number) =>
      new RemoteSatchel({
        url: server.url,
        token: 'k',
        fetch: async () => new Response('<html>bad gateway</html>', { status }),
      });
    await expect(proxy(502).whoami()).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(proxy(404).whoami()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(proxy(429).whoami()).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(() => new RemoteSatchel({ url: 'not a url', token: 'k' })).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });

  it('turns a problem into the same SatchelError, without the HTTP members', async () => {
    const error = await remote.getWorkspace('nope').catch((e: unknown) => e);
    const local = await direct.getWorkspace('nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SatchelError);
    expect((error as SatchelError).toJSON()).toEqual((local as SatchelError).toJSON());
  });
});
