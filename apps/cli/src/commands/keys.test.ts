/** `principals`, `keys`, `members` and `--as` on a real data directory. */
import type { CreatedKey, KeyInfo, Member } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REMOTE_TARGET, TestCli } from '../testing.js';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
  await cli.run(['ws', 'create', 'w']);
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel principals and keys', () => {
  it('creates and lists principals (admin only)', async () => {
    const created = await cli.run(['principals', 'create', 'alice', '--kind', 'user']);
    expect(created.stdout).toBe('created principal alice (user)\n');
    await cli.run(['principals', 'create', 'bot']);
    const ls = await cli.run(['principals', 'ls']);
    expect(ls.stdout).toMatch(/^admin {2}user {3}admin {2}\d{4}-/);
    expect(ls.stdout).toMatch(/\nbot {4}agent {2}- {6}\d{4}-/);
    const json = JSON.parse((await cli.run(['principals', 'ls', '--json'])).stdout) as {
      items: { name: string }[];
    };
    expect(json.items.map((p) => p.name)).toEqual(['admin', 'alice', 'bot']);

    const dup = await cli.run(['principals', 'create', 'alice']);
    expect(dup.code).toBe(4);
    const badKind = await cli.run(['principals', 'create', 'x', '--kind', 'robot']);
    expect(badKind.code).toBe(2);

    const key = await cli.run(['keys', 'create', '--principal', 'bot']);
    const refused = await cli.run(['principals', 'ls', '--as', key.stdout.trim()]);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toBe(
      'satchel: bot may not administer principals and keys (FORBIDDEN)\n' +
        'hint: only the admin may do this; run it without --as (local commands act as the admin)\n',
    );
  });

  it('prints a key once, lists and revokes keys; a revoked key gives exit 5', async () => {
    await cli.run(['principals', 'create', 'bot']);
    const created = await cli.run([
      'keys',
      'create',
      '--principal',
      'bot',
      '--label',
      'ci runner',
      '--only-workspace',
      'w',
      '--path-prefix',
      '/out',
      '--role',
      'editor',
      '--expires-in',
      '30d',
    ]);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(created.stdout).toMatch(/^satchel_[0-9a-f]{16}_\S{43}\n$/);
    const id = key.split('_')[1] ?? '';
    expect(created.stderr).toBe(
      `created key ${id} for bot (workspaces w; role editor; paths /out); ` +
        'store it now: it cannot be shown again\n',
    );

    const mine = await cli.run(['keys', 'ls', '--as', key]);
    expect(mine.stdout).toMatch(
      new RegExp(
        `^${id} {2}bot {2}expires \\S+ \\S+ {2}workspaces w; role editor; paths /out {2}"ci runner"\n$`,
      ),
    );
    expect(mine.stdout).not.toContain(key);
    const all = JSON.parse((await cli.run(['keys', 'ls', '--all', '--json'])).stdout) as {
      items: KeyInfo[];
    };
    expect(all.items.map((k) => k.principal).sort()).toEqual(['admin', 'bot']);

    const json = JSON.parse((await cli.run(['keys', 'create', '--read-only', '--json'])).stdout);
    expect(json as CreatedKey).toMatchObject({ info: { principal: 'admin', readOnly: true } });

    expect((await cli.run(['keys', 'revoke', id])).stdout).toBe(`revoked key ${id} of bot\n`);
    expect((await cli.run(['keys', 'ls', '--all'])).stdout).toMatch(
      new RegExp(`${id} {2}bot {4}revoked `),
    );
    const revoked = await cli.in('w', ['ls', '--as', key]);
    expect(revoked.code).toBe(5);
    expect(revoked.stderr).toBe(
      'satchel: invalid API key: the key was revoked (UNAUTHENTICATED)\n' +
        (REMOTE_TARGET
          ? 'hint: check SATCHEL_TOKEN: the server at SATCHEL_URL does not accept it (unknown, revoked or expired)\n'
          : 'hint: check the key given to --as; the admin lists keys with `satchel keys ls --all`\n'),
    );
    const garbage = await cli.in('w', ['ls', '--as', 'nope']);
    expect(garbage.code).toBe(5);
    const unknown = await cli.run(['keys', 'revoke', '0000000000000000']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('hint: list keys with `satchel keys ls`');
  });

  it('holds --as keys to their narrowing: read-only and path prefixes', async () => {
    const reader = await cli.principal('reader', ['--read-only']);
    const writer = await cli.principal('writer', ['--path-prefix', '/out']);
    for (const name of ['reader', 'writer']) await cli.in('w', ['members', 'add', name, 'editor']);
    const ro = await cli.in('w', ['put', '-', '/x', '--as', reader], { stdin: 'x' });
    expect(ro.code).toBe(5);
    expect(ro.stderr).toContain('hint: the key is read-only; use a key that may write');
    const outside = await cli.in('w', ['put', '-', '/x', '--as', writer], { stdin: 'x' });
    expect(outside.code).toBe(5);
    expect(outside.stderr).toContain('hint: the key may change only beneath its path prefixes');
    const inside = await cli.in('w', ['put', '-', '/out/x', '--as', writer], { stdin: 'x' });
    expect(inside.stdout).toBe('wrote /out/x (1 bytes, version 1)\n');
    const log = await cli.in('w', ['log', '/out/x']);
    expect(log.stdout).toMatch(/ write {2}writer /);
  });
});

describe('satchel members', () => {
  it('adds, lists, changes and removes members; a viewer may read but not write', async () => {
    const viewer = await cli.principal('vic');
    expect((await cli.in('w', ['members', 'add', 'vic', 'viewer'])).stdout).toBe(
      'vic is now viewer of w\n',
    );
    const ls = await cli.in('w', ['members', 'ls']);
    expect(ls.stdout).toMatch(
      /^admin {2}user {3}owner {3}\d{4}-.+\nvic {4}agent {2}viewer {2}\d{4}-/,
    );
    const json = JSON.parse((await cli.in('w', ['members', 'ls', '--json'])).stdout) as {
      items: Member[];
    };
    expect(json.items).toContainEqual(
      expect.objectContaining({ principal: 'vic', role: 'viewer' }),
    );

    expect((await cli.in('w', ['ls', '--as', viewer])).code).toBe(0);
    const write = await cli.in('w', ['put', '-', '/x', '--as', viewer], { stdin: 'x' });
    expect(write.code).toBe(5);
    expect(write.stderr).toBe(
      'satchel: vic may not change files in w: that needs editor, and it is viewer (FORBIDDEN)\n' +
        'hint: an owner can grant it with `satchel members add NAME editor` ' +
        '(unless the key’s role ceiling is lower)\n',
    );
    const self = await cli.in('w', ['members', 'add', 'vic', 'owner', '--as', viewer]);
    expect(self.code).toBe(5);

    await cli.in('w', ['members', 'set', 'vic', 'editor']);
    expect((await cli.in('w', ['put', '-', '/x', '--as', viewer], { stdin: 'x' })).code).toBe(0);

    expect((await cli.in('w', ['members', 'rm', 'vic'])).stdout).toBe('removed vic from w\n');
    const hidden = await cli.in('w', ['ls', '--as', viewer]);
    expect(hidden.code).toBe(3);
    const again = await cli.in('w', ['members', 'rm', 'vic', '--json']);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('hint: list members with `satchel members ls`');
    const nobody = await cli.in('w', ['members', 'add', 'ghost', 'viewer']);
    expect(nobody.stderr).toContain('hint: list principals with `satchel principals ls`');
    const bad = await cli.in('w', ['members', 'add', 'vic', 'king']);
    expect(bad.code).toBe(2);
    const last = await cli.in('w', ['members', 'rm', 'admin']);
    expect(last.code).toBe(4);
    expect(last.stderr).toContain('hint: first make another member owner');
  });
});
