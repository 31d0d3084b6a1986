/** `comment ls|add|reply|resolve` and `share create|ls|revoke` on a data directory. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
  await cli.run(['ws', 'create', 'w']);
  await cli.in('w', ['put', '-', '/report.md'], { stdin: 'a\nb\nc\nd\ne\n' });
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel comment', () => {
  it('adds a comment on lines, replies, lists it, resolves it', async () => {
    const added = await cli.in('w', [
      'comment',
      'add',
      '/report.md',
      '--lines',
      '3-5',
      'cite it',
      '--json',
    ]);
    expect(added.code).toBe(0);
    const { id } = JSON.parse(added.stdout) as { id: string };
    const reply = await cli.in('w', ['comment', 'reply', id, 'done']);
    expect(reply.stdout).toMatch(new RegExp(`^reply cm_\\w+ in thread ${id}\\n$`));

    const listed = await cli.in('w', ['comment', 'ls', '--status', 'open']);
    expect(listed.stdout).toContain(`${id}  /report.md L3-5  [open]  admin`);
    expect(listed.stdout).toContain('  cite it\n  ↳ admin: done\n');

    expect((await cli.in('w', ['comment', 'resolve', id])).stdout).toBe(`thread ${id} resolved\n`);
    const open = await cli.in('w', ['comment', 'ls', '--status', 'open', '--json']);
    expect(JSON.parse(open.stdout)).toEqual({ items: [], nextCursor: null });

    const bad = await cli.in('w', ['comment', 'add', '/report.md', '--lines', 'x', 'body']);
    expect(bad.code).toBe(2);
  });
});

describe('satchel share', () => {
  it('creates a link, lists it without its token, revokes it', async () => {
    const made = await cli.in('w', [
      'share',
      'create',
      '/report.md',
      '--max-downloads',
      '2',
      '--json',
    ]);
    expect(made.code).toBe(0);
    const link = JSON.parse(made.stdout) as { id: string; token: string; url: string };
    expect(link.url).toBe(`/s/${link.token}`);
    const listed = await cli.in('w', ['share', 'ls']);
    expect(listed.stdout).toContain(`${link.id}  /report.md  active  0/2`);
    expect(listed.stdout).not.toContain(link.token);
    expect((await cli.in('w', ['share', 'revoke', link.id])).stdout).toBe(`revoked ${link.id}\n`);
    const locked = await cli.in(
      'w',
      ['share', 'create', '/report.md', '--password-stdin', '--json'],
      {
        stdin: 'long enough secret\n',
      },
    );
    expect(JSON.parse(locked.stdout)).toMatchObject({ hasPassword: true });
  });
});
