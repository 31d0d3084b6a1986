/**
 * Remote mode: with SATCHEL_URL and SATCHEL_TOKEN the CLI talks to a live `serve` (started here
 * on its own data directory) and never opens a local one.
 */
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, serve } from '@satchel/api';
import { openSatchel, type SatchelEngine } from '@satchel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, type RunOptions, TestCli } from './testing.js';

let serverData: string;
let engine: SatchelEngine;
let server: RunningServer;
let adminKey: string;
let cli: TestCli;

beforeAll(async () => {
  serverData = await mkdtemp(join(tmpdir(), 'satchel-cli-server-'));
  engine = await openSatchel({ data: serverData });
  adminKey = engine.createdAdminKey ?? '';
  server = await serve(engine, { port: 0, api: { logFault: () => undefined } });
  cli = await TestCli.create();
});
afterAll(async () => {
  await server.close();
  await engine.close();
  await rm(serverData, { recursive: true, force: true });
  await cli.dispose();
});

/** Runs the CLI against the server, as `token` (default the server's admin key). */
function remote(argv: readonly string[], options: RunOptions & { token?: string } = {}) {
  const { token = adminKey, env, ...rest } = options;
  return cli.run(argv, {
    ...rest,
    env: { SATCHEL_URL: server.url, SATCHEL_TOKEN: token, ...env },
  });
}

function ok(r: CliResult): CliResult {
  expect(r.code, r.stderr).toBe(0);
  return r;
}

describe('satchel with SATCHEL_URL', () => {
  it('creates, writes, lists, reads and logs on the server', async () => {
    expect(ok(await remote(['ws', 'create', 'far'])).stdout).toContain('far');
    await writeFile(join(cli.dir, 'notes.md'), '# one\n');
    expect(ok(await remote(['put', 'notes.md', '/docs/', '-w', 'far'])).stdout).toBe(
      'wrote /docs/notes.md (6 bytes, version 1)\n',
    );
    ok(await remote(['put', '-', '/docs/notes.md', '-w', 'far'], { stdin: '# two\n' }));

    const listed = JSON.parse(ok(await remote(['ls', '/docs', '--json', '-w', 'far'])).stdout);
    expect(listed).toMatchObject({
      items: [{ path: '/docs/notes.md', size: 6, seq: 2, author: 'admin' }],
      total: 1,
    });
    expect(ok(await remote(['cat', '/docs/notes.md', '-w', 'far'])).stdout).toBe('# two\n');
    expect(ok(await remote(['cat', '/docs/notes.md', '--head', '1', '-w', 'far'])).stdout).toBe(
      '# two\n',
    );
    const log = ok(await remote(['log', '/docs/notes.md', '-w', 'far'])).stdout.split('\n');
    expect(log.filter((line) => line !== '')).toHaveLength(2);
    expect(log[0]).toMatch(/^\s*2 .* write .* admin /);

    // It all happened on the server's data directory, none here.
    expect((await engine.stat('far', '/docs/notes.md')).seq).toBe(2);
    await expect(access(cli.data)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('locks and unlocks, and exits 4 on a write another key has locked', async () => {
    ok(await remote(['ws', 'create', 'locked']));
    ok(await remote(['put', '-', '/a.txt', '-w', 'locked'], { stdin: 'a\n' }));
    await engine.createPrincipal({ name: 'bob', kind: 'agent' });
    await engine.setMember('locked', 'bob', 'editor');
    const bob = (await engine.createKey({ principal: 'bob' })).key;

    const lock = JSON.parse(ok(await remote(['lock', '/a.txt', '--json', '-w', 'locked'])).stdout);
    expect(lock).toMatchObject({ path: '/a.txt', holder: 'admin' });
    const refused = await remote(['put', '-', '/a.txt', '-w', 'locked'], {
      token: bob,
      stdin: 'bob\n',
    });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/^satchel: \/a\.txt is locked by admin until .+ \(LOCKED\)\n/);
    expect(ok(await remote(['locks', '-w', 'locked'])).stdout).toContain(lock.id);
    expect(ok(await remote(['unlock', lock.id, '-w', 'locked'])).stdout).toBe(
      `unlocked ${lock.id}\n`,
    );
    ok(await remote(['put', '-', '/a.txt', '-w', 'locked'], { token: bob, stdin: 'bob\n' }));
  });

  it('exits 3 for what the server does not have, 5 for a bad key', async () => {
    ok(await remote(['ws', 'create', 'empty']));
    const missing = await remote(['cat', '/nope.txt', '-w', 'empty']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^satchel: file \/nope\.txt not found \(NOT_FOUND\)\n/);
    expect((await remote(['ws', 'info', 'nowhere'])).code).toBe(3);
    const bad = await remote(['ws', 'ls'], { token: 'satchel_nope' });
    expect(bad.code).toBe(5);
    expect(bad.stderr).toContain('(UNAUTHENTICATED)');
    expect(bad.stderr).toContain('hint: check SATCHEL_TOKEN');
  });

  it('status names the server and who the token is', async () => {
    const text = ok(await remote(['status'])).stdout;
    expect(text).toMatch(new RegExp(`^server {2,}${server.url}$`, 'm'));
    expect(text).toMatch(/^acting as {2,}admin \(user, administrator, key \S+\)$/m);
    const json = JSON.parse(ok(await remote(['status', '--json'])).stdout);
    expect(json).toMatchObject({
      server: server.url,
      whoami: { principal: 'admin' },
      adminKey: null,
    });
    expect(json).not.toHaveProperty('data');
  });

  it('refuses --as and a missing token with exit 2, and an unreachable server with exit 1', async () => {
    const as = await remote(['ws', 'ls', '--as', adminKey]);
    expect(as.code).toBe(2);
    expect(as.stderr).toContain('--as works on a local data directory');
    const noToken = await cli.run(['ws', 'ls'], { env: { SATCHEL_URL: server.url } });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('SATCHEL_TOKEN is not');

    const spare = await serve(engine, { port: 0 });
    await spare.close();
    const down = await cli.run(['ws', 'ls'], {
      env: { SATCHEL_URL: spare.url, SATCHEL_TOKEN: adminKey },
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`cannot reach ${spare.url}`);
  });

  it('--data on the command line still means a local data directory', async () => {
    const local = ok(await remote(['status', '--json', '--data', join(cli.dir, 'here')]));
    expect(JSON.parse(local.stdout)).toMatchObject({ data: join(cli.dir, 'here') });
  });
});
