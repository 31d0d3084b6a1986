/** `ls`, `mkdir`, `rm`, `mv`, `cp` on a real temp data directory. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
  await cli.run(['ws', 'create', 'w']);
});
afterEach(async () => {
  await cli.dispose();
});

async function put(path: string, content: string): Promise<void> {
  const r = await cli.in('w', ['put', '-', path], { stdin: content });
  expect(r.code).toBe(0);
}

describe('satchel ls', () => {
  it('lists type, size, version, time and names relative to the directory', async () => {
    await put('/docs/a.md', 'x'.repeat(2048));
    await put('/docs/sub/b.md', 'b');
    await put('/top.txt', 'top');
    const r = await cli.in('w', ['ls', '/docs']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^- {2}2\.0 KiB {2}1 {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}a\.md$/);
    expect(lines[1]).toMatch(/^d {2}\s*- {2}2 {2}.*Z {2}sub\/$/);
    const recursive = await cli.in('w', ['ls', '-r']);
    expect(recursive.stdout).toContain(' /docs/sub/b.md\n');
    expect(recursive.stdout).toContain(' /top.txt\n');
  });

  it('prints {items, nextCursor, total} with --json and filters with --glob', async () => {
    await put('/a.md', 'a');
    await put('/x/b.md', 'b');
    await put('/x/c.txt', 'c');
    const r = await cli.in('w', ['ls', '--glob', '**/*.md', '--json']);
    const page = JSON.parse(r.stdout) as {
      items: { path: string }[];
      nextCursor: null;
      total: number;
    };
    expect(page.items.map((i) => i.path)).toEqual(['/a.md', '/x/b.md']);
    expect(page).toMatchObject({ nextCursor: null, total: 2 });
  });

  it('tells how many entries remain and how to continue', async () => {
    for (const n of [1, 2, 3, 4, 5]) await put(`/f${n}`, String(n));
    const first = await cli.in('w', ['ls', '--limit', '2']);
    expect(first.stdout.trimEnd().split('\n')).toHaveLength(2);
    const match = /^… 3 more; continue with --cursor (\S+)\n$/.exec(first.stderr);
    expect(match).not.toBeNull();
    const next = await cli.in('w', ['ls', '--limit', '2', '--cursor', match?.[1] ?? '']);
    expect(next.stdout).toMatch(/f3\n.*f4\n$/);
    expect(next.stderr).toMatch(/^… more of 5; continue with --cursor \S+\n$/);
  });

  it('needs a workspace (exit 2) and takes it from SATCHEL_WORKSPACE', async () => {
    const none = await cli.run(['ls']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      'satchel: no workspace selected (INVALID_INPUT)\n' +
        'hint: pass -w NAME or set SATCHEL_WORKSPACE (list them with `satchel ws ls`)\n',
    );
    await put('/e.txt', 'e');
    const env = await cli.run(['ls'], { env: { SATCHEL_WORKSPACE: 'w' } });
    expect(env.code).toBe(0);
    expect(env.stdout).toContain('e.txt');
    const before = await cli.run(['-w', 'w', 'ls']);
    expect(before.stdout).toBe(env.stdout);
  });

  it('rejects an invalid path with exit 2 and a bad --limit with exit 2', async () => {
    expect((await cli.in('w', ['ls', '/a/../b'])).code).toBe(2);
    expect((await cli.in('w', ['ls', '--limit', '-1'])).code).toBe(2);
    expect((await cli.in('w', ['ls', '--limit', '5000'])).code).toBe(2);
  });
});

describe('satchel mkdir / rm / mv / cp', () => {
  it('creates directories and removes them, -r for non-empty ones', async () => {
    expect((await cli.in('w', ['mkdir', '/a/b'])).stdout).toBe(
      'created directory /a/b (version 1)\n',
    );
    await put('/a/b/f.txt', 'f');
    const refused = await cli.in('w', ['rm', '/a']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('hint: pass -r to delete the directory');
    const removed = await cli.in('w', ['rm', '/a', '-r']);
    expect(removed.stdout).toBe('removed /a (3 entries, version 3)\n');
    expect((await cli.in('w', ['ls'])).stdout).toBe('');
    expect((await cli.in('w', ['rm', '/a'])).code).toBe(3);
  });

  it('removes with --if-match only when the head matches', async () => {
    await put('/f', '1');
    expect((await cli.in('w', ['rm', '/f', '--if-match', '7'])).code).toBe(4);
    const ok = await cli.in('w', ['rm', '/f', '--if-match', '1', '--json']);
    expect(JSON.parse(ok.stdout)).toEqual({ path: '/f', seq: 2, removed: 1 });
  });

  it('moves and copies, refusing to replace without --overwrite', async () => {
    await put('/a.txt', 'A');
    await put('/b.txt', 'B');
    const conflict = await cli.in('w', ['mv', '/a.txt', '/b.txt']);
    expect(conflict.code).toBe(4);
    expect(conflict.stderr).toContain('(CONFLICT)\nhint: pass --overwrite to replace it\n');
    expect((await cli.in('w', ['mv', '/a.txt', '/b.txt', '--overwrite'])).stdout).toBe(
      'moved /a.txt -> /b.txt (version 3)\n',
    );
    expect((await cli.in('w', ['cat', '/b.txt'])).stdout).toBe('A');
    expect((await cli.in('w', ['cp', '/b.txt', '/c/d.txt'])).stdout).toBe(
      'copied /b.txt -> /c/d.txt (version 4)\n',
    );
    expect((await cli.in('w', ['cp', '/b.txt', '/c/d.txt'])).code).toBe(4);
    expect((await cli.in('w', ['cat', '/c/d.txt'])).stdout).toBe('A');
    expect((await cli.in('w', ['cat', '/a.txt'])).code).toBe(3);
  });
});
