/** `put`, `get`, `cat`, `append`, `edit` on a real temp data directory. */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
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

describe('satchel put / get / cat', () => {
  it('round-trips a binary file with NUL bytes', async () => {
    const data = Buffer.from([0, 1, 2, 0, 255, 0, 10, 13, 0]);
    await writeFile(join(cli.dir, 'bin.dat'), data);
    const put = await cli.in('w', ['put', 'bin.dat']);
    expect(put.code).toBe(0);
    expect(put.stdout).toBe(`wrote /bin.dat (${data.length} bytes, version 1)\n`);
    const cat = await cli.in('w', ['cat', '/bin.dat']);
    expect(cat.bytes.equals(data)).toBe(true);
    const get = await cli.in('w', ['get', '/bin.dat', 'copy.dat']);
    expect(get.code).toBe(0);
    expect(get.stdout).toContain(`to ${join(cli.dir, 'copy.dat')}`);
    expect((await readFile(join(cli.dir, 'copy.dat'))).equals(data)).toBe(true);
  });

  it('round-trips a 3 MB file, streamed both ways', async () => {
    const data = randomBytes(3 * 1024 * 1024);
    await writeFile(join(cli.dir, 'big.bin'), data);
    const put = await cli.in('w', ['put', 'big.bin', '/data/', '--json']);
    expect(put.code).toBe(0);
    expect(JSON.parse(put.stdout)).toMatchObject({ path: '/data/big.bin', size: data.length });
    const out = await cli.in('w', ['get', '/data/big.bin']);
    expect(out.bytes.equals(data)).toBe(true);
    await cli.in('w', ['get', '/data/big.bin', '.']);
    expect((await readFile(join(cli.dir, 'big.bin'))).equals(data)).toBe(true);
  });

  it('puts stdin with "-" and needs a PATH for it', async () => {
    const put = await cli.in('w', ['put', '-', '/notes/in.txt', '-m', 'from a pipe'], {
      stdin: 'piped\n',
    });
    expect(put.stdout).toBe('wrote /notes/in.txt (6 bytes, version 1)\n');
    expect((await cli.in('w', ['cat', 'notes/in.txt'])).stdout).toBe('piped\n');
    const missing = await cli.in('w', ['put', '-'], { stdin: 'x' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'satchel: put from stdin (-) needs a file PATH (INVALID_INPUT)',
    );
  });

  it('refuses --create-only on an existing file (4) and a stale --if-match (4)', async () => {
    await cli.in('w', ['put', '-', '/a.txt'], { stdin: 'one' });
    const again = await cli.in('w', ['put', '-', '/a.txt', '--create-only'], { stdin: 'two' });
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/^satchel: .*\(PRECONDITION_FAILED\)\nhint: .*--create-only/);
    await cli.in('w', ['put', '-', '/a.txt', '--if-match', '1'], { stdin: 'two' });
    const stale = await cli.in('w', ['put', '-', '/a.txt', '--if-match', '1'], { stdin: 'three' });
    expect(stale.code).toBe(4);
    expect(stale.stderr).toContain('hint: re-read the file and retry with --if-match 2');
    expect((await cli.in('w', ['cat', '/a.txt'])).stdout).toBe('two');
  });

  it('reports a missing local file as NOT_FOUND and writes nothing', async () => {
    const r = await cli.in('w', ['put', 'nope.txt']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('satchel: local file nope.txt not found (NOT_FOUND)\n');
    expect((await cli.in('w', ['ls'])).stdout).toBe('');
  });

  it('reports an unknown file with one line and exit 3', async () => {
    const r = await cli.in('w', ['cat', '/missing.txt']);
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n')[0]).toBe('satchel: file /missing.txt not found (NOT_FOUND)');
    expect(r.stdout).toBe('');
  });

  it('get to a file is atomic: a failed read leaves no file, an old file intact', async () => {
    await cli.in('w', ['put', '-', '/a.txt'], { stdin: 'content' });
    const r = await cli.in('w', ['get', '/a.txt', 'out.txt', '--version', '9']);
    expect(r.code).toBe(3);
    await writeFile(join(cli.dir, 'keep.txt'), 'old');
    expect((await cli.in('w', ['get', '/nope', 'keep.txt'])).code).toBe(3);
    expect(await readFile(join(cli.dir, 'keep.txt'), 'utf8')).toBe('old');
    expect((await readdir(cli.dir)).sort()).toEqual(['data', 'keep.txt']);
  });

  it('cat reads old versions, heads and tails', async () => {
    await cli.in('w', ['put', '-', '/l.txt'], { stdin: '1\n2\n3\n4\n' });
    await cli.in('w', ['put', '-', '/l.txt'], { stdin: 'new\n' });
    expect((await cli.in('w', ['cat', '/l.txt', '--version', '1'])).stdout).toBe('1\n2\n3\n4\n');
    expect((await cli.in('w', ['cat', '/l.txt', '--version', '1', '--head', '2'])).stdout).toBe(
      '1\n2\n',
    );
    expect((await cli.in('w', ['cat', '/l.txt', '--version', '1', '--tail', '1'])).stdout).toBe(
      '4\n',
    );
    const bad = await cli.in('w', ['cat', '/l.txt', '--head', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('must be a positive integer');
  });
});

describe('satchel append / edit', () => {
  it('appends TEXT with a newline, -n without, and stdin as is', async () => {
    expect((await cli.in('w', ['append', '/log.md', 'first'])).code).toBe(0);
    await cli.in('w', ['append', '/log.md', 'sec', '-n']);
    const piped = await cli.in('w', ['append', '/log.md'], { stdin: 'ond\n' });
    expect(piped.stdout).toBe('appended to /log.md (now 13 bytes, version 3)\n');
    expect((await cli.in('w', ['cat', '/log.md'])).stdout).toBe('first\nsecond\n');
  });

  it('edits with a diff, supports --dry-run and --all, and refuses ambiguity', async () => {
    await cli.in('w', ['put', '-', '/t.txt'], { stdin: 'a x\nb x\n' });
    const ambiguous = await cli.in('w', ['edit', '/t.txt', '--old', 'x', '--new', 'y']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/^satchel: edit 1: the text to replace matches 2 places/);
    const dry = await cli.in('w', [
      'edit',
      '/t.txt',
      '--old',
      'x',
      '--new',
      'y',
      '--all',
      '--dry-run',
    ]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('-a x\n-b x\n+a y\n+b y\n');
    expect(dry.stderr).toContain('dry run: 2 replacement(s)');
    expect((await cli.in('w', ['cat', '/t.txt'])).stdout).toBe('a x\nb x\n');
    const json = await cli.in('w', ['edit', '/t.txt', '--old', 'a x', '--new', 'A', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ replacements: 1, dryRun: false });
    expect((await cli.in('w', ['cat', '/t.txt'])).stdout).toBe('A\nb x\n');
  });
});
