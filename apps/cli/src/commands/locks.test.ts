/** `lock`, `unlock`, `locks` and `--lock-token` between two principals on a real data directory. */
import type { Lock } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

let cli: TestCli;
let bob: string;
beforeEach(async () => {
  cli = await TestCli.create();
  await cli.run(['ws', 'create', 'w']);
  await cli.in('w', ['put', '-', '/a.txt'], { stdin: 'one\n' });
  bob = await cli.principal('bob');
  await cli.in('w', ['members', 'add', 'bob', 'editor']);
});
afterEach(async () => {
  await cli.dispose();
});

async function lock(argv: readonly string[], as?: string): Promise<Lock> {
  const r = await cli.in('w', ['lock', ...argv, '--json', ...(as ? ['--as', as] : [])]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Lock;
}

describe('satchel lock', () => {
  it('keeps other writers out, lets the holder write with its token, and fences stale tokens', async () => {
    const human = await cli.in('w', ['lock', '/a.txt', '--ttl', '5m']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /^locked \/a\.txt \(token \d+, id \S+, expires \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\)\n$/,
    );
    expect(human.stderr).toMatch(/^write with --lock-token \d+; release with `satchel unlock/);
    const first = /id (\S+),/.exec(human.stdout)?.[1] ?? '';
    expect((await cli.in('w', ['unlock', first])).stdout).toBe(`unlocked ${first}\n`);

    const held = await lock(['/a.txt']);
    expect(held).toMatchObject({
      path: '/a.txt',
      scope: 'file',
      mode: 'exclusive',
      holder: 'admin',
    });

    const refused = await cli.in('w', ['put', '-', '/a.txt', '--as', bob], { stdin: 'bob\n' });
    expect(refused.code).toBe(4);
    const [message, hint] = refused.stderr.split('\n');
    expect(message).toMatch(/^satchel: \/a\.txt is locked by admin until .+ \(LOCKED\)$/);
    expect(hint).toMatch(/^hint: admin holds it until \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ; retry/);
    expect(hint).toContain(`\`satchel unlock ${held.id} --break\``);
    const append = await cli.in('w', ['append', '/a.txt', 'x', '--as', bob]);
    expect(append.code).toBe(4);

    const token = String(held.token);
    const ok = await cli.in('w', ['put', '-', '/a.txt', '--lock-token', token], { stdin: 'two\n' });
    expect(ok.code, ok.stderr).toBe(0);

    const listed = await cli.in('w', ['locks']);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^/a\\.txt {2}file {2}exclusive {2}admin {2}${token} {2}(1m|\\d+s) {2}${held.id}\n$`,
      ),
    );
    const json = await cli.in('w', ['locks', '/a.txt', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ items: [held] });

    expect((await cli.in('w', ['unlock', held.id])).stdout).toBe(`unlocked ${held.id}\n`);
    const stale = await cli.in('w', ['put', '-', '/a.txt', '--lock-token', token], {
      stdin: 'late\n',
    });
    expect(stale.code).toBe(4);
    expect(stale.stderr).toContain(`lock token ${token} is stale for /a.txt`);
    expect(stale.stderr).toContain(
      'hint: your lock expired or was released; acquire it again (`satchel lock PATH`)',
    );
    expect((await cli.in('w', ['cat', '/a.txt'])).stdout).toBe('two\n');
    const free = await cli.in('w', ['put', '-', '/a.txt', '--as', bob], { stdin: 'bob\n' });
    expect(free.code).toBe(0);
    expect((await cli.in('w', ['locks'])).stderr).toBe('no live locks\n');
  });

  it('passes --lock-token on every write, so a released lock fences them all', async () => {
    await cli.in('w', ['mkdir', '/d']);
    const tree = await lock(['/', '--tree']);
    await cli.in('w', ['unlock', tree.id]);
    const token = ['--lock-token', String(tree.token)];
    const writes = [
      ['put', '-', '/a.txt'],
      ['append', '/a.txt', 'more'],
      ['edit', '/a.txt', '--old', 'one', '--new', 'uno'],
      ['mkdir', '/e'],
      ['rm', '/d'],
      ['mv', '/a.txt', '/b.txt'],
      ['cp', '/a.txt', '/c.txt'],
      ['restore', '/a.txt', '1'],
    ];
    for (const argv of writes) {
      const r = await cli.in('w', [...argv, ...token], { stdin: 'x' });
      expect(r.code, argv.join(' ')).toBe(4);
      expect(r.stderr, argv.join(' ')).toContain('(LOCKED)\nhint: your lock expired');
    }
  });

  it('renews a lock, tells a waiting owner to --wait, and lets an owner break it', async () => {
    const bobs = await lock(['/docs', '--tree', '--ttl', '60'], bob);
    expect(bobs).toMatchObject({ holder: 'bob', scope: 'tree' });

    const blocked = await cli.in('w', ['lock', '/docs/x.md']);
    expect(blocked.code).toBe(4);
    expect(blocked.stderr).toMatch(
      /\nhint: bob holds it until .+; pass --wait 30s to wait for it\n$/,
    );

    const renewed = await cli.in('w', ['lock', '--renew', bobs.id, '--ttl', '10m', '--as', bob]);
    expect(renewed.stdout).toMatch(
      new RegExp(`^renewed /docs \\(token ${bobs.token}, id ${bobs.id}`),
    );
    const again = await lock(['--renew', bobs.id, '--ttl', '20m'], bob);
    expect(Date.parse(again.expiresAt)).toBeGreaterThan(Date.parse(bobs.expiresAt));

    const notHolder = await cli.in('w', ['unlock', bobs.id]);
    expect(notHolder.code).toBe(5);
    expect(notHolder.stderr).toContain(
      `hint: an owner can break it: \`satchel unlock ${bobs.id} --break\``,
    );
    const bobBreaks = await cli.in('w', ['unlock', bobs.id, '--break', '--as', bob]);
    expect(bobBreaks.code).toBe(5);
    expect(bobBreaks.stderr).toContain('that needs owner, and it is editor (FORBIDDEN)');

    const broken = await cli.in('w', ['unlock', bobs.id, '--break']);
    expect(broken.stdout).toBe(`broke bob’s lock on /docs (id ${bobs.id})\n`);
    const gone = await cli.in('w', ['unlock', bobs.id, '--as', bob]);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain('hint: list live locks with `satchel locks`');
  });

  it('rejects bad usage with exit 2', async () => {
    expect((await cli.in('w', ['lock'])).stderr).toContain(
      'lock needs a PATH (or --renew LOCK_ID)',
    );
    expect((await cli.in('w', ['lock', '/a.txt', '--renew', 'x'])).code).toBe(2);
    expect((await cli.in('w', ['lock', '/a.txt', '--ttl', 'soon'])).code).toBe(2);
    const tooLong = await cli.in('w', ['lock', '/a.txt', '--ttl', '2h']);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain('hint: --ttl must be from 1s to 1h');
  });
});
