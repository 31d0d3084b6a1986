/** `transfer offer|accept|cancel|ls`: an agent hands its workspace to a person. */
import type { Member, Transfer, TransferOffer } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

let cli: TestCli;
let builder: string;
let alice: string;
beforeEach(async () => {
  cli = await TestCli.create();
  builder = await cli.principal('builder');
  alice = await cli.principal('alice');
  expect((await cli.run(['ws', 'create', 'proj', '--as', builder])).code).toBe(0);
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel transfer', () => {
  it('offers to a named principal; accepting makes them owner and the agent an editor', async () => {
    const offer = await cli.in('proj', ['transfer', 'offer', '--to', 'alice', '--as', builder]);
    expect(offer.code).toBe(0);
    expect(offer.stdout).toMatch(/^claim_\S+\n$/);
    expect(offer.stderr).toMatch(
      /^offered proj to alice until .+; the claim code cannot be shown again/,
    );
    const code = offer.stdout.trim();

    const carol = await cli.principal('carol');
    const wrong = await cli.run(['transfer', 'accept', code, '--as', carol]);
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toBe(
      'satchel: this offer is for alice, not carol (FORBIDDEN)\n' +
        'hint: the offer names another principal; accept it as them (--as THEIR_KEY)\n',
    );

    const accepted = await cli.run(['transfer', 'accept', code, '--as', alice]);
    expect(accepted.stdout).toBe('you now own proj; builder stays as editor\n');
    const members = JSON.parse(
      (await cli.in('proj', ['members', 'ls', '--json', '--as', alice])).stdout,
    ) as { items: Member[] };
    expect(members.items.map((m) => [m.principal, m.role]).sort()).toEqual([
      ['alice', 'owner'],
      ['builder', 'editor'],
    ]);
    const human = await cli.in('proj', ['members', 'ls', '--as', alice]);
    expect(human.stdout).toMatch(/alice +agent +owner /);

    const reused = await cli.run(['transfer', 'accept', code, '--as', alice]);
    expect(reused.code).toBe(3);
    expect(reused.stderr).toBe(
      'satchel: this claim code is already used (NOT_FOUND)\n' +
        'hint: ask the owner for a new claim code\n',
    );
    const notOwner = await cli.in('proj', ['transfer', 'offer', '--as', builder]);
    expect(notOwner.code).toBe(5);
  });

  it('lists and cancels open offers; --remove-me and --expires-in shape the offer', async () => {
    const json = await cli.in('proj', [
      'transfer',
      'offer',
      '--remove-me',
      '--expires-in',
      '7d',
      '--json',
      '--as',
      builder,
    ]);
    const offered = JSON.parse(json.stdout) as TransferOffer;
    expect(offered).toMatchObject({ workspace: 'proj', to: null, previousOwner: 'none' });
    const days = (Date.parse(offered.expiresAt) - Date.parse(offered.createdAt)) / 86_400_000;
    expect(days).toBeCloseTo(7);

    const ls = await cli.in('proj', ['transfer', 'ls', '--as', builder]);
    expect(ls.stdout).toMatch(
      new RegExp(
        `^${offered.id} {2}anyone with the code {2}by builder {2}expires .+ {2}builder leaves\n$`,
      ),
    );
    const listed = JSON.parse((await cli.in('proj', ['transfer', 'ls', '--json'])).stdout) as {
      items: Transfer[];
    };
    expect(listed.items.map((t) => t.id)).toEqual([offered.id]);

    const cancelled = await cli.in('proj', ['transfer', 'cancel', offered.id, '--as', builder]);
    expect(cancelled.stdout).toBe(`cancelled transfer ${offered.id} of proj\n`);
    expect((await cli.in('proj', ['transfer', 'ls'])).stderr).toBe(
      'no open transfer offers for proj\n',
    );
    const late = await cli.run(['transfer', 'accept', offered.code, '--as', alice]);
    expect(late.code).toBe(3);
    const again = await cli.in('proj', ['transfer', 'cancel', offered.id]);
    expect(again.code).toBe(4);

    const tooLong = await cli.in('proj', ['transfer', 'offer', '--expires-in', '31d']);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain('hint: --expires-in must be at most 30d');
  });
});
