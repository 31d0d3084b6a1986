/** `snapshot create|ls|rm` and reading the past with `cat --at` / `ls --at`. */
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
  expect((await cli.in('w', ['put', '-', path], { stdin: content })).code).toBe(0);
}

describe('satchel snapshot', () => {
  it('names a state that cat --at and ls --at read back after the files changed', async () => {
    await put('/report.md', 'draft\n');
    await put('/notes/a.txt', 'a\n');
    const made = await cli.in('w', ['snapshot', 'create', 'before-run', '-m', 'clean tree']);
    expect(made.stdout).toBe('snapshot before-run names seq 2 of w\n');

    await put('/report.md', 'final\n');
    expect((await cli.in('w', ['rm', '-r', '/notes'])).code).toBe(0);

    expect((await cli.in('w', ['cat', '/report.md', '--at', 'before-run'])).stdout).toBe('draft\n');
    expect((await cli.in('w', ['cat', '/report.md', '--at', '2', '--head', '1'])).stdout).toBe(
      'draft\n',
    );
    expect((await cli.in('w', ['cat', '/report.md'])).stdout).toBe('final\n');
    const then = await cli.in('w', ['ls', '-r', '--at', 'before-run', '--json']);
    const paths = (JSON.parse(then.stdout) as { items: { path: string }[] }).items.map(
      (i) => i.path,
    );
    expect(paths).toEqual(['/notes', '/notes/a.txt', '/report.md']);

    const listed = await cli.in('w', ['snapshot', 'ls']);
    expect(listed.stdout).toMatch(/^before-run {2}2 {2}\S+ \S+ {2}admin {2}clean tree\n$/);
    expect((await cli.in('w', ['snapshot', 'rm', 'before-run'])).stdout).toBe(
      'forgot snapshot before-run\n',
    );
    const gone = await cli.in('w', ['cat', '/report.md', '--at', 'before-run']);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain('snapshot before-run not found');
  });

  it('refuses bad names and a seq past the head with a usage-class error', async () => {
    const digits = await cli.in('w', ['snapshot', 'create', '42']);
    expect(digits.code).toBe(2);
    expect(digits.stderr).toContain('not only digits');
    const later = await cli.in('w', ['ls', '--at', '99']);
    expect(later.code).toBe(2);
    expect(later.stderr).toContain('past the head');
    expect((await cli.in('w', ['snapshot', 'ls'])).stderr).toContain('no snapshots yet');
  });
});
