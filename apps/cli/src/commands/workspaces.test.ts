/** `satchel ws …` on a real temp data directory (and, in the remote project, over a server). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel ws', () => {
  it('creates, lists, shows and deletes workspaces', async () => {
    expect((await cli.run(['ws', 'create', 'alpha'])).stdout).toBe('created workspace alpha\n');
    await cli.run(['ws', 'create', 'beta']);
    const ls = await cli.run(['ws', 'ls']);
    expect(ls.code).toBe(0);
    expect(ls.stdout.split('\n')[0]).toMatch(/^alpha\s+0\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
    expect(ls.stdout).toContain('beta');

    await cli.in('alpha', ['put', '-', '/a.txt'], { stdin: 'hello' });
    const info = await cli.run(['ws', 'info', 'alpha', '--json']);
    expect(JSON.parse(info.stdout)).toMatchObject({ name: 'alpha', files: 1, bytes: 5, seq: 1 });
    const human = await cli.in('alpha', ['ws', 'info']);
    expect(human.stdout).toMatch(/files\s+1\n/);
    expect(human.stdout).toMatch(/size\s+5 B\n/);

    const refused = await cli.run(['ws', 'rm', 'alpha']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('satchel: refusing to delete workspace alpha without --yes');
    expect((await cli.run(['ws', 'rm', 'alpha', '--yes'])).stdout).toBe(
      'deleted workspace alpha\n',
    );
    const after = await cli.run(['ws', 'ls', '--json']);
    expect(JSON.parse(after.stdout)).toMatchObject({ items: [{ name: 'beta' }], nextCursor: null });
  });

  it('pages the workspace list', async () => {
    for (const name of ['a', 'b', 'c']) await cli.run(['ws', 'create', name]);
    const first = await cli.run(['ws', 'ls', '--limit', '2']);
    expect(first.stdout.trim().split('\n')).toHaveLength(2);
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1] ?? '';
    expect(cursor).not.toBe('');
    const rest = await cli.run(['ws', 'ls', '--limit', '2', '--cursor', cursor]);
    expect(rest.stdout).toMatch(/^c\s/);
    expect(rest.stderr).toBe('');
  });

  it('reports a duplicate as CONFLICT (4) and a bad name as INVALID_INPUT (2)', async () => {
    await cli.run(['ws', 'create', 'dup']);
    const dup = await cli.run(['ws', 'create', 'dup']);
    expect(dup.code).toBe(4);
    expect(dup.stderr).toBe('satchel: workspace dup already exists (CONFLICT)\n');
    const bad = await cli.run(['ws', 'create', 'Bad Name']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^satchel: invalid workspace name .*\(INVALID_INPUT\)\n$/);
  });

  it('reports an unknown workspace as NOT_FOUND (3) with a hint', async () => {
    await cli.run(['status']); // past the first start and its note
    const r = await cli.run(['ws', 'info', 'ghost']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'satchel: workspace ghost not found (NOT_FOUND)\n' +
        'hint: list workspaces with `satchel ws ls`, create one with `satchel ws create NAME`\n',
    );
  });
});

describe('satchel ws usage and quotas', () => {
  it('sets quotas, shows usage, and exits 6 on a write over a quota', async () => {
    await cli.run(['ws', 'create', 'q']);
    const set = await cli.run(['ws', 'set', 'q', '--quota-bytes', '1K', '--quota-files', '2']);
    expect(set.stdout).toBe(
      'workspace q: indexing on, quotas: bytes 1.0 KiB, history none, files 2\n',
    );
    await cli.in('q', ['put', '-', '/a.txt'], { stdin: 'x'.repeat(600) });
    await cli.in('q', ['put', '-', '/a.txt'], { stdin: 'y'.repeat(300) });
    const refused = await cli.in('q', ['put', '-', '/b.txt'], { stdin: 'z'.repeat(800) });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('limited to 1024 bytes of current files; it holds 300');
    const usage = await cli.run(['ws', 'usage', 'q']);
    expect(usage.stdout.split('\n')).toEqual([
      'current       300 B  of 1.0 KiB',
      'with history  900 B',
      'deduplicated  900 B',
      'files             1  of 2',
      '',
    ]);
    const json = await cli.run(['ws', 'usage', 'q', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      currentBytes: 300,
      historyBytes: 900,
      files: 1,
      quota: { bytes: 1024, historyBytes: null, files: 2 },
    });
    expect((await cli.run(['ws', 'set', 'q', '--quota-bytes', 'lots'])).code).toBe(2);
    expect((await cli.run(['ws', 'set', 'q', '--quota-bytes', 'none'])).stderr).toBe('');
    const lifted = await cli.in('q', ['put', '-', '/b.txt'], { stdin: 'z'.repeat(800) });
    expect(lifted.stderr).toBe('');
    expect(lifted.code).toBe(0);
  });
});
