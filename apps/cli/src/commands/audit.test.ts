/** `satchel audit`: listing, paging, --verify (exit 8 when broken) and --export. */
import type { AuditEntryOut, AuditVerificationOut } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

let cli: TestCli;
let bob: string;
beforeEach(async () => {
  cli = await TestCli.create();
  await cli.run(['ws', 'create', 'w']);
  await cli.in('w', ['put', '-', '/a.txt', '--session', 'run-1'], { stdin: 'a' });
  bob = await cli.principal('bob');
  await cli.in('w', ['members', 'add', 'bob', 'viewer']);
  await cli.in('w', ['put', '-', '/x', '--as', bob], { stdin: 'x' });
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel audit', () => {
  it('lists who did what, allowed or refused, oldest first and page by page', async () => {
    const ws = await cli.in('w', ['audit']);
    expect(ws.code).toBe(0);
    const lines = ws.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^\s*\d+ {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}admin +createWorkspace {2}w /,
    );
    expect(ws.stdout).toMatch(/ admin \[run-1\] +writeFile +w {2}\/a\.txt@1 +ok\n/);
    expect(ws.stdout).toMatch(/ bob +writeFile +w {2}\/x +refused FORBIDDEN\n/);

    const all = JSON.parse((await cli.run(['audit', '--json'])).stdout) as {
      items: AuditEntryOut[];
      nextCursor: string | null;
    };
    expect(all.items.map((e) => e.action)).toContain('createPrincipal');
    expect(all.items.map((e) => e.idx)).toEqual(all.items.map((_, i) => i + 1));

    const first = await cli.run(['audit', '--limit', '2']);
    expect(first.stdout.trim().split('\n')).toHaveLength(2);
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1] ?? '';
    const next = await cli.run(['audit', '--limit', '2', '--cursor', cursor, '--json']);
    expect((JSON.parse(next.stdout) as { items: AuditEntryOut[] }).items[0]?.idx).toBe(3);

    const notAdmin = await cli.run(['audit', '--as', bob]);
    expect(notAdmin.code).toBe(5);
    const notOwner = await cli.in('w', ['audit', '--as', bob]);
    expect(notOwner.code).toBe(5);
    expect(notOwner.stderr).toContain('that needs owner, and it is viewer (FORBIDDEN)');
  });

  it('--server lists only entries with no workspace, e.g. a call against a missing one', async () => {
    await cli.in('nowhere', ['cat', '/probe.md']);
    const server = JSON.parse((await cli.run(['audit', '--server', '--json'])).stdout) as {
      items: AuditEntryOut[];
    };
    expect(server.items.every((e) => e.workspaceId === null)).toBe(true);
    expect(server.items).toContainEqual(
      expect.objectContaining({ workspace: 'nowhere', path: '/probe.md', code: 'NOT_FOUND' }),
    );
    expect(server.items.map((e) => e.action)).not.toContain('writeFile');
    expect((await cli.in('w', ['audit', '--server'])).code).toBe(2);
  });

  it('verifies the chain (exit 0) and exports JSON lines', async () => {
    const ok = await cli.run(['audit', '--verify']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^audit log ok: \d+ entries\n$/);
    const json = await cli.run(['audit', '--verify', '--json']);
    expect(JSON.parse(json.stdout) as AuditVerificationOut).toMatchObject({
      ok: true,
      index: null,
    });

    const exported = await cli.run(['audit', '--export']);
    expect(exported.code).toBe(0);
    const entries = exported.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { idx: number; hash: string });
    expect(entries.length).toBeGreaterThan(5);
    expect(entries.map((e) => e.idx)).toEqual(entries.map((_, i) => i + 1));
    expect((await cli.run(['audit', '--export', '--as', bob])).code).toBe(5);
  });

  it('refuses --verify or --export with paging options (exit 2)', async () => {
    expect((await cli.run(['audit', '--verify', '--limit', '3'])).code).toBe(2);
    expect((await cli.run(['audit', '--export', '--cursor', '3'])).code).toBe(2);
    expect((await cli.run(['audit', '--export', '--verify'])).code).toBe(2);
  });
});
