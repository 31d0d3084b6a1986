/** Progress bars of `put`, `get` and `sync`: drawn on a terminal's stderr, absent everywhere else. */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from './program.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'satchel-progress-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A stderr that says it is a terminal, as a real one does. */
function terminal(): PassThrough {
  return Object.assign(new PassThrough(), { isTTY: true, columns: 120 });
}

async function satchel(argv: string[], tty: boolean) {
  const stdout = new PassThrough();
  const stderr = tty ? terminal() : new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const stdin = new PassThrough();
  stdin.end();
  const code = await run(argv, {
    stdout,
    stderr,
    stdin,
    env: { SATCHEL_DATA: join(dir, 'data'), SATCHEL_WORKSPACE: 'w' },
    cwd: dir,
    isTTY: false,
    stderrIsTTY: tty,
  });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

describe('progress bars', () => {
  it('show bytes, speed and ETA for a large put and get on a terminal, ending their line', async () => {
    expect((await satchel(['ws', 'create', 'w'], false)).code).toBe(0);
    const content = randomBytes(3 * 1024 * 1024);
    await writeFile(join(dir, 'big.bin'), content);

    const put = await satchel(['put', 'big.bin', '/big.bin'], true);
    expect(put.code, put.stderr).toBe(0);
    expect(put.stdout).toMatch(/^wrote \/big\.bin \(3145728 bytes, version \d+\)\n$/);
    expect(put.stderr).toContain('put /big.bin [');
    expect(put.stderr).toContain('100% 3.0 MiB/3.0 MiB');
    expect(put.stderr).toMatch(/\d+(\.\d)? [KMG]?i?B\/s ETA /);
    expect(put.stderr.endsWith('\n')).toBe(true);

    const get = await satchel(['get', '/big.bin', 'copy.bin'], true);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stderr).toContain('get /big.bin [');
    expect(get.stderr).toContain('100% 3.0 MiB/3.0 MiB');
    expect(get.stderr.endsWith('\n')).toBe(true);
    expect(Buffer.compare(await readFile(join(dir, 'copy.bin')), content)).toBe(0);
  });

  it('show files and bytes of a sync, with speed and ETA, on a terminal', async () => {
    expect((await satchel(['ws', 'create', 'w'], false)).code).toBe(0);
    await mkdir(join(dir, 'tree'));
    for (let i = 0; i < 4; i++)
      await writeFile(join(dir, 'tree', `f${i}.bin`), randomBytes(512 * 1024));

    const sync = await satchel(['sync', 'tree'], true);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).toContain('sync tree 4/4 files [');
    expect(sync.stderr).toContain('100% 2.0 MiB/2.0 MiB');
    expect(sync.stderr).toMatch(/\d+(\.\d)? [KMG]?i?B\/s ETA /);
    expect(sync.stderr.endsWith('\n')).toBe(true);
  });

  it('stay off when stderr is not a terminal, and for small files', async () => {
    expect((await satchel(['ws', 'create', 'w'], false)).code).toBe(0);
    await writeFile(join(dir, 'big.bin'), randomBytes(2 * 1024 * 1024));
    await writeFile(join(dir, 'small.txt'), 'hello\n');

    const piped = await satchel(['put', 'big.bin'], false);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    const got = await satchel(['get', '/big.bin', 'out.bin'], false);
    expect(got.code).toBe(0);
    expect(got.stderr).toBe('');

    const small = await satchel(['put', 'small.txt'], true);
    expect(small.code).toBe(0);
    expect(small.stderr).toBe('');
  });
});
