/** `members add` by an owner invites; `invitations ls|accept|decline` is the invitee's side. */
import type { Invitation, Member } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

let cli: TestCli;
let owner: string;
let bob: string;
beforeEach(async () => {
  cli = await TestCli.create();
  owner = await cli.principal('owner');
  bob = await cli.principal('bob');
  expect((await cli.run(['ws', 'create', 'proj', '--as', owner])).code).toBe(0);
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel invitations', () => {
  it("an owner's add invites; the invitee lists, accepts and then writes", async () => {
    const invited = await cli.in('proj', ['members', 'invite', 'bob', 'editor', '--as', owner]);
    expect(invited.code).toBe(0);
    expect(invited.stdout).toMatch(
      /^invited bob as editor of proj until \d{4}-\d\d-\d\d [\d:]+Z; they join once they accept: `satchel invitations accept [0-9a-f-]{36}`\n$/,
    );
    const before = await cli.in('proj', ['put', '-', '/x', '--as', bob], { stdin: 'x' });
    expect(before.code).toBe(3);

    const pending = JSON.parse((await cli.run(['invitations', 'ls', '--json', '--as', bob])).stdout)
      .items as Invitation[];
    expect(pending).toMatchObject([
      { workspace: 'proj', principal: 'bob', role: 'editor', invitedBy: 'owner' },
    ]);
    const id = pending[0]?.id ?? '';
    const human = await cli.run(['invitations', 'ls', '--as', bob]);
    expect(human.stdout).toMatch(new RegExp(`^${id} +proj +editor +by owner +expires \\d{4}-`));
    const owners = await cli.in('proj', ['members', 'invited', '--as', owner]);
    expect(owners.stdout).toMatch(new RegExp(`^${id} +bob +editor +by owner `));

    const accepted = await cli.run(['invitations', 'accept', id, '--as', bob]);
    expect(accepted.stdout).toBe('you are now editor of proj\n');
    expect((await cli.in('proj', ['put', '-', '/x', '--as', bob], { stdin: 'x' })).code).toBe(0);
    const members = JSON.parse(
      (await cli.in('proj', ['members', 'ls', '--json', '--as', owner])).stdout,
    ) as { items: Member[] };
    expect(members.items.map((m) => [m.principal, m.role])).toEqual([
      ['bob', 'editor'],
      ['owner', 'owner'],
    ]);
    expect((await cli.run(['invitations', 'ls', '--as', bob])).stdout).toBe(
      'no pending invitations\n',
    );
    const again = await cli.run(['invitations', 'accept', id, '--as', bob]);
    expect(again.code).toBe(3);
    expect(again.stderr).toBe(
      `satchel: invitation ${id} not found (NOT_FOUND)\n` +
        'hint: list your pending invitations with `satchel invitations ls`; ask the owner to invite you again\n',
    );
  });

  it('declines; inviting a name nobody has answers like any other invitation', async () => {
    const json = JSON.parse(
      (await cli.in('proj', ['members', 'add', 'bob', 'viewer', '--json', '--as', owner])).stdout,
    ) as Invitation & { status: string };
    expect(json).toMatchObject({ status: 'invited', principal: 'bob', role: 'viewer' });
    const declined = await cli.run(['invitations', 'decline', json.id, '--as', bob]);
    expect(declined.stdout).toBe(`declined invitation ${json.id}\n`);
    expect((await cli.in('proj', ['ls', '--as', bob])).code).toBe(3);

    const ghost = await cli.in('proj', ['members', 'add', 'ghost', 'viewer', '--as', owner]);
    expect(ghost.code).toBe(0);
    expect(ghost.stdout).toMatch(/^invited ghost as viewer of proj until /);
    const gone = await cli.in('proj', ['members', 'rm', 'ghost', '--as', owner]);
    expect(gone.stdout).toBe('removed ghost from proj\n');
    const neither = await cli.in('proj', ['members', 'rm', 'ghost', '--as', owner]);
    const stranger = await cli.in('proj', ['members', 'rm', 'bob', '--as', owner]);
    expect(neither.code).toBe(3);
    expect(neither.stderr.replaceAll('ghost', 'NAME')).toBe(
      stranger.stderr.replaceAll('bob', 'NAME'),
    );
  });
});
