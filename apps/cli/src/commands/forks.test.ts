/** `fork` and `merge`: fork at a snapshot, diverge, a preview by default, then --apply in one seq. */
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

async function put(ws: string, path: string, content: string): Promise<void> {
  const r = await cli.in(ws, ['put', '-', path], { stdin: content });
  expect(r.code).toBe(0);
}

const cat = async (ws: string, path: string) => (await cli.in(ws, ['cat', path])).stdout;

describe('satchel fork and merge', () => {
  it('forks, previews a merge back without writing, applies it with the conflict kept beside', async () => {
    await put('w', '/a.txt', 'a\n');
    await put('w', '/b.txt', 'b\n');
    await cli.in('w', ['snapshot', 'create', 'start']);
    await put('w', '/later.txt', 'later\n');

    const forked = await cli.run(['fork', 'w', 'try', '--at', 'start', '--json']);
    expect(forked.code).toBe(0);
    expect(JSON.parse(forked.stdout)).toMatchObject({ name: 'try', source: 'w', at: 2, files: 2 });
    await put('try', '/a.txt', 'theirs\n');
    await put('try', '/b.txt', 'theirs b\n');
    await put('w', '/b.txt', 'ours b\n');

    const preview = await cli.run(['merge', 'try']);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain(
      'merge of try (seq 4) into w (head 4): 0 to create, 1 to modify, 0 to delete, 1 conflicts',
    );
    expect(preview.stdout).toMatch(/modify +\/a\.txt +1 → 3/);
    expect(preview.stdout).toMatch(/both_changed +\/b\.txt \(theirs kept as \/b\.conflict-try-/);
    expect(preview.stderr).toContain('add --apply');
    expect(await cat('w', '/a.txt')).toBe('a\n');

    const applied = await cli.run(['merge', 'try', '--into', 'w', '--apply', '--json']);
    const result = JSON.parse(applied.stdout) as {
      seq: number;
      session: string;
      conflicts: { keptAs: string }[];
    };
    expect(result).toMatchObject({ seq: 5, session: 'merge:5' });
    expect(await cat('w', '/a.txt')).toBe('theirs\n');
    expect(await cat('w', '/b.txt')).toBe('ours b\n');
    expect(await cat('w', result.conflicts[0]?.keptAs ?? '')).toBe('theirs b\n');

    const again = await cli.run(['merge', 'try', '--apply']);
    expect(again.stdout).toContain('nothing to merge');
    const stranger = await cli.run(['merge', 'w']);
    expect(stranger.code).toBe(2);
    expect(stranger.stderr).toContain('w is not a fork');
  });
});
