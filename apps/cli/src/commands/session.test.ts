/** `--session NAME` / SATCHEL_SESSION: stamped on versions and on the audit entries of changes. */
import type { AuditEntryOut, Lock, Transfer, Version } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
  await cli.run(['ws', 'create', 'w']);
  await cli.principal('bob');
});
afterEach(async () => {
  await cli.dispose();
});

async function ok(argv: string[], env?: Record<string, string>, stdin?: string): Promise<string> {
  const r = await cli.in('w', argv, { env, stdin });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

describe('session labels', () => {
  it('stamp writes, locks, members and transfers, from the flag or SATCHEL_SESSION', async () => {
    const flag = ['--session', 'run-1'];
    await ok(['put', '-', '/a.txt', ...flag], undefined, 'one\n');
    await ok(['append', '/a.txt', 'two'], { SATCHEL_SESSION: 'env-run' });
    const lock = JSON.parse(await ok(['lock', '/a.txt', '--json', ...flag])) as Lock;
    expect(lock.session).toBe('run-1');
    await ok(['lock', '--renew', lock.id, ...flag]);
    await ok(['unlock', lock.id, ...flag]);
    const held = JSON.parse(await ok(['lock', '/a.txt', '--json'])) as Lock;
    await ok(['unlock', held.id, '--break', ...flag]);
    await ok(['members', 'add', 'bob', 'editor', ...flag]);
    await ok(['members', 'rm', 'bob', ...flag]);
    const offer = JSON.parse(await ok(['transfer', 'offer', '--json', ...flag])) as Transfer;
    await ok(['transfer', 'cancel', offer.id, ...flag]);

    const log = JSON.parse(await ok(['log', '/a.txt', '--json'])) as { items: Version[] };
    expect(log.items.map((v) => v.session)).toEqual(['env-run', 'run-1']);

    const audit = JSON.parse(await ok(['audit', '--json', '--limit', '1000'])) as {
      items: AuditEntryOut[];
    };
    const stamped = audit.items.filter((e) => e.session === 'run-1').map((e) => e.action);
    expect(stamped).toEqual([
      'writeFile',
      'acquireLock',
      'renewLock',
      'releaseLock',
      'breakLock',
      'setMember',
      'removeMember',
      'offerTransfer',
      'cancelTransfer',
    ]);
    expect(audit.items.find((e) => e.action === 'appendFile')?.session).toBe('env-run');
  });
});
