/** `satchel sync DIR`, `sync status` and `sandbox run` on real directories (and, remotely, a live server). */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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

async function put(dir: string, path: string, content: string): Promise<void> {
  await mkdir(join(cli.dir, dir, path, '..'), { recursive: true });
  await writeFile(join(cli.dir, dir, path), content);
}

describe('satchel sync', () => {
  it('syncs two directories, keeps both sides of a conflict and exits 4, and shows it in status', async () => {
    await put('a', 'notes.md', 'v1\n');
    await put('a', 'big.bin', 'x'.repeat(300_000));
    const first = await cli.in('w', ['sync', 'a', '--label', 'sbx-a']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /^synced a with w \(restored: fresh or reset tree\): 2 up, 0 down/,
    );
    expect((await cli.in('w', ['sync', 'b', '--label', 'sbx-b'])).code).toBe(0);
    expect(await readFile(join(cli.dir, 'b/notes.md'), 'utf8')).toBe('v1\n');

    await put('a', 'notes.md', 'from a\n');
    await put('b', 'notes.md', 'from b\n');
    expect((await cli.in('w', ['sync', 'a', '--label', 'sbx-a'])).code).toBe(0);
    const conflicted = await cli.in('w', ['sync', 'b', '--label', 'sbx-b', '--json']);
    expect(conflicted.code).toBe(4);
    const report = JSON.parse(conflicted.stdout);
    expect(report.conflicts).toEqual([
      expect.objectContaining({
        path: '/notes.md',
        keptAs: expect.stringMatching(/^\/notes\.conflict-sbx-b-\d{8}T\d{6}Z\.md$/),
      }),
    ]);
    const kept = report.conflicts[0].keptAs as string;
    expect(await readFile(join(cli.dir, 'b/notes.md'), 'utf8')).toBe('from a\n');
    expect(await readFile(join(cli.dir, 'b', kept), 'utf8')).toBe('from b\n');
    expect((await cli.in('w', ['cat', kept])).stdout).toBe('from b\n');

    const status = await cli.run(['sync', 'status', 'b', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      workspace: 'w',
      files: 3,
      conflicts: [{ path: '/notes.md', keptAs: kept }],
    });
    const human = await cli.run(['sync', 'status', 'b']);
    expect(human.stdout).toContain(`conflict /notes.md (`);
    expect((await cli.run(['sync', 'status', 'never'])).stdout).toBe('never was never synced\n');
  });

  it('stops a cycle that would delete most files, with its own message, until --force', async () => {
    for (const n of [1, 2, 3, 4]) await put('a', `f${n}.txt`, `file ${n}`);
    await cli.in('w', ['sync', 'a']);
    for (const n of [1, 2, 3]) await rm(join(cli.dir, 'a', `f${n}.txt`));
    const stopped = await cli.in('w', ['sync', 'a']);
    expect(stopped.code).toBe(4);
    expect(stopped.stderr).toContain('sync stopped: it would delete 3 of 4 synced files');
    expect(stopped.stderr).toContain('run again with --force');
    expect((await cli.in('w', ['ls'])).stdout).toContain('f1.txt');
    const forced = await cli.in('w', ['sync', 'a', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('3 deleted in the workspace');
  });

  it('warns when the workspace changed .satchelignore and applies it only after --accept-ignore', async () => {
    await put('a', 'notes.md', 'v1\n');
    expect((await cli.in('w', ['sync', 'a'])).code).toBe(0);
    await put('b', '.satchelignore', '*.md\n');
    expect((await cli.in('w', ['sync', 'b', '--mode', 'push'])).code).toBe(0);
    const pending = await cli.in('w', ['sync', 'a']);
    expect(pending.code).toBe(0);
    expect(pending.stderr).toContain(
      'warning: /.satchelignore was changed in the workspace; sync still applies the rules you accepted',
    );
    await put('a', 'new.md', 'mine\n');
    const still = await cli.in('w', ['sync', 'a']);
    expect(still.stdout).toMatch(/: 1 up,/);
    expect(still.stderr).toContain('--accept-ignore');
    const accepted = await cli.in('w', ['sync', 'a', '--accept-ignore']);
    expect(accepted.code).toBe(0);
    expect(accepted.stderr).not.toContain('warning');
    await put('a', 'ignored.md', 'x\n');
    expect((await cli.in('w', ['sync', 'a'])).stdout).toMatch(/: 0 up,/);
  });

  it('brings back gitignored files a tree lost, unless --delete-restored says they go', async () => {
    await put('a', '.gitignore', 'build/\n');
    await put('a', 'build/out.txt', 'artifact\n');
    await put('a', 'keep.md', 'k\n');
    expect((await cli.in('w', ['sync', 'a'])).code).toBe(0);

    await rm(join(cli.dir, 'a/build'), { recursive: true });
    const restored = await cli.in('w', ['sync', 'a', '--json']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout).notices).toEqual(
      expect.arrayContaining([expect.objectContaining({ reason: 'restore_detected' })]),
    );
    expect(await readFile(join(cli.dir, 'a/build/out.txt'), 'utf8')).toBe('artifact\n');
    expect((await cli.in('w', ['cat', '/build/out.txt'])).code).toBe(0);

    await rm(join(cli.dir, 'a/build'), { recursive: true });
    const deleted = await cli.in('w', ['sync', 'a', '--delete-restored']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await cli.in('w', ['cat', '/build/out.txt'])).code).toBe(3);
    expect((await cli.in('w', ['cat', '/keep.md'])).stdout).toBe('k\n');
  });

  it('pulls a replica, and refuses a bad mode', async () => {
    await cli.in('w', ['put', '-', '/r/x.txt'], { stdin: 'remote\n' });
    const pulled = await cli.in('w', ['sync', 'replica', '--mode', 'pull']);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(await readFile(join(cli.dir, 'replica/r/x.txt'), 'utf8')).toBe('remote\n');
    expect((await cli.in('w', ['sync', 'replica', '--mode', 'sideways'])).code).toBe(2);
  });
});

describe('satchel sandbox run', () => {
  it('runs a command with the workspace restored and saves what it wrote', async () => {
    await cli.in('w', ['put', '-', '/input.txt'], { stdin: 'hello\n' });
    const first = await cli.run([
      'sandbox',
      'run',
      '-w',
      'w',
      '--sandbox',
      'agent',
      '--',
      'sh',
      '-c',
      'cat input.txt; tr a-z A-Z < input.txt > output.txt',
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('hello\n');
    expect(first.stderr).toContain('sandbox agent (new)');
    expect((await cli.in('w', ['cat', '/output.txt'])).stdout).toBe('HELLO\n');

    expect((await cli.run(['sandbox', 'reset', 'agent'])).code).toBe(0);
    const again = await cli.run([
      'sandbox',
      'run',
      '-w',
      'w',
      '--sandbox',
      'agent',
      '--json',
      '--',
      'sh',
      '-c',
      'cat output.txt; exit 5',
    ]);
    expect(again.code).toBe(5);
    expect(JSON.parse(again.stdout)).toMatchObject({
      sandbox: 'agent',
      boot: 'clean',
      exitCode: 5,
      restore: { reset: true, downloaded: 2, deletedRemote: 0 },
    });
    expect(again.stderr).toContain('HELLO');
    expect((await cli.run(['sandbox', 'ls'])).stdout).toBe('agent\n');
    expect((await cli.run(['sandbox', 'rm', 'agent'])).code).toBe(0);
    expect((await cli.run(['sandbox', 'rm', 'agent'])).code).toBe(3);
  });

  it('names a snapshot before the command with --snapshot, and the run is undone since it', async () => {
    await cli.in('w', ['put', '-', '/plan.md'], { stdin: 'v1\n' });
    const r = await cli.run([
      'sandbox',
      'run',
      '-w',
      'w',
      '--snapshot',
      '--',
      'sh',
      '-c',
      'echo v2 > plan.md; echo x > made.txt',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const name = /snapshot (before-run-\d{8}T\d{6}Z) \(seq \d+\) before the command/.exec(
      r.stderr,
    )?.[1];
    expect(name, r.stderr).toBeDefined();
    expect(r.stderr).toContain(`satchel undo --since ${name} --apply`);
    expect((await cli.in('w', ['cat', '/plan.md', '--at', String(name)])).stdout).toBe('v1\n');
    const undone = await cli.in('w', ['undo', '--since', String(name), '--apply']);
    expect(undone.code, undone.stderr).toBe(0);
    expect((await cli.in('w', ['cat', '/plan.md'])).stdout).toBe('v1\n');
    expect((await cli.in('w', ['cat', '/made.txt'])).code).toBe(3);
  });

  it('needs CSB_API_KEY for the codesandbox provider', async () => {
    const r = await cli.run(
      ['sandbox', 'run', '-w', 'w', '--provider', 'codesandbox', '--', 'true'],
      { env: { CSB_API_KEY: '' } },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('CSB_API_KEY');
  });
});
