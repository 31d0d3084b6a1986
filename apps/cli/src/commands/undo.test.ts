/** `undo`: a preview by default, then --apply in one seq; undoing the undo. */
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

async function put(path: string, content: string, ...flags: string[]): Promise<void> {
  const r = await cli.in('w', ['put', '-', path, ...flags], { stdin: content });
  expect(r.code).toBe(0);
}

const cat = async (path: string) => (await cli.in('w', ['cat', path])).stdout;

describe('satchel undo', () => {
  it('previews a session undo, writes nothing, then applies it and undoes the undo', async () => {
    await put('/a.txt', 'one\n');
    await put('/a.txt', 'two\n', '--session', 'run-1');
    await put('/new.txt', 'new\n', '--session', 'run-1');

    const preview = await cli.in('w', ['undo', '--session', 'run-1', '--diff']);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain('1 to revert, 1 to delete, 0 to recreate, 0 conflicts');
    expect(preview.stdout).toMatch(/revert +\/a\.txt +2 → 1/);
    expect(preview.stdout).toMatch(/delete +\/new\.txt +3 → none/);
    expect(preview.stdout).toContain('\n-two\n+one\n');
    expect(preview.stderr).toContain('add --apply');
    expect(await cat('/a.txt')).toBe('two\n');

    const applied = await cli.in('w', ['undo', '--session', 'run-1', '--apply', '--json']);
    const result = JSON.parse(applied.stdout) as { seq: number; session: string };
    expect(result).toMatchObject({ seq: 4, session: 'undo:4' });
    expect(await cat('/a.txt')).toBe('one\n');
    expect((await cli.in('w', ['cat', '/new.txt'])).code).not.toBe(0);

    const back = await cli.in('w', ['undo', '--session', 'undo:4', '--apply']);
    expect(back.stdout).toContain('undone in seq 5 as session undo:5');
    expect(await cat('/a.txt')).toBe('two\n');
    expect(await cat('/new.txt')).toBe('new\n');
  });

  it('lists conflicts and leaves them unless --force; undoes since a seq', async () => {
    await put('/a.txt', 'one\n', '--session', 'run-2');
    await cli.in('w', ['put', '-', '/a.txt', '--session', 'other'], { stdin: 'theirs\n' });
    const preview = await cli.in('w', ['undo', '--session', 'run-2']);
    expect(preview.stdout).toContain('0 to revert, 0 to delete, 0 to recreate, 1 conflicts');
    expect(preview.stdout).toMatch(/changed_since +\/a\.txt \(head 2 by admin\)/);
    const forced = await cli.in('w', ['undo', '--session', 'run-2', '--force', '--apply']);
    expect(forced.stdout).toMatch(/delete +\/a\.txt +2 → none +\(forced\)/);

    await put('/b.txt', 'b\n');
    const since = await cli.in('w', ['undo', '--since', '3', '--apply', '--label', 'tidy']);
    expect(since.stdout).toContain('as session tidy');
    expect((await cli.in('w', ['cat', '/b.txt'])).code).not.toBe(0);
    const none = await cli.in('w', ['undo']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('say which changes to undo');
  });
});
