/** `satchel status` on a real temp data directory: what a first start creates and prints (local only). */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel status', () => {
  it('creates the data directory and tells the next steps', async () => {
    const r = await cli.run(['status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`data directory  ${cli.data}`);
    expect(r.stdout).toContain('acting as       admin (user, administrator)\n');
    expect(r.stdout).toMatch(/workspaces\s+0/);
    expect(r.stdout).toContain('satchel ws create NAME');
    expect(r.stdout).toContain('satchel put FILE');
    expect((await stat(cli.data)).isDirectory()).toBe(true);
  });

  it('is also `start`, honours --data and prints JSON', async () => {
    await cli.run(['ws', 'create', 'one']);
    const r = await cli.run(['start', '--data', 'other', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      data: `${cli.dir}/other`,
      workspaces: 0,
      workspace: null,
      whoami: { principal: 'admin', kind: 'user', admin: true, key: null },
      adminKey: expect.stringMatching(/^satchel_/),
    });
    const counted = await cli.run(['status', '--json'], { env: { SATCHEL_WORKSPACE: 'one' } });
    expect(JSON.parse(counted.stdout)).toMatchObject({ workspaces: 1, workspace: 'one' });
  });

  it('prints the admin key once, on the first start, and says where it is kept', async () => {
    const file = join(cli.data, 'admin.key');
    const first = await cli.run(['status']);
    const key = (await readFile(file, 'utf8')).trim();
    expect(first.stdout).toContain(`\nadmin key       ${key}\n`);
    expect(first.stderr).toBe(
      `first start: created the admin key; it is saved in ${file} (mode 0600) and will not be ` +
        'shown again\n',
    );
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const second = await cli.run(['status', '--json']);
    expect(second.stdout).not.toContain(key);
    expect(JSON.parse(second.stdout)).toMatchObject({ adminKey: null });
    expect(second.stderr).toBe('');
  });

  it('notes the admin key file when another command starts the data directory', async () => {
    const r = await cli.run(['ws', 'ls']);
    expect(r.stderr).toBe(
      `note: first start: created the admin key, saved in ${join(cli.data, 'admin.key')} ` +
        '(mode 0600)\nno workspaces yet; create one with `satchel ws create NAME`\n',
    );
  });

  it('shows who a key acts as with --as, and refuses an unknown key with exit 5', async () => {
    const key = await cli.principal('bot', ['--read-only']);
    const id = key.split('_')[1] ?? '';
    const r = await cli.run(['status', '--as', key]);
    expect(r.stdout).toContain(`acting as       bot (agent, key ${id})\n`);
    const json = JSON.parse((await cli.run(['status', '--as', key, '--json'])).stdout);
    expect(json).toMatchObject({ whoami: { principal: 'bot', key: { id, readOnly: true } } });
    const bad = await cli.run(['status', '--as', `${key.slice(0, -4)}AAAA`]);
    expect(bad.code).toBe(5);
    expect(bad.stderr.split('\n')[0]).toBe(
      'satchel: invalid API key: unknown key (UNAUTHENTICATED)',
    );
  });
});
