/**
 * The built binary's start (start.ts): the chunks load through V8's code cache, the build's data
 * (dist/v8/) or the data a run kept under XDG_CACHE_HOME; a cache that is damaged, stale or cannot
 * be written changes nothing a user sees. turbo builds the package before its tests; run by hand,
 * build it first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSatchel } from '@satchel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtData, chunkScript } from './chunk-script.js';

const main = join(dirname(dirname(fileURLToPath(import.meta.url))), 'dist', 'main.js');

let dir: string;
let data: string;
beforeAll(async () => {
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`pnpm build\` first`);
  dir = await mkdtemp(join(tmpdir(), 'satchel-start-'));
  data = join(dir, 'data');
  const engine = await openSatchel({ data });
  await engine.createWorkspace('notes');
  await engine.writeFile('notes', '/todo.md', '- ship\n');
  await engine.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Another V8 heap limit: V8's flags differ from the build's, so its data does not match, as for
 * a user who sets one.
 */
const OTHER_FLAGS = { NODE_OPTIONS: '--max-old-space-size=3000' };

/** `satchel ls` with its cache under `cacheHome`; its exit code and output. */
function ls(cacheHome: string, env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [main, 'ls', '--data', data, '-w', 'notes'], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, XDG_CACHE_HOME: cacheHome, ...env },
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The one build folder under `cacheHome`, and its files with their contents and times. */
async function cacheFiles(cacheHome: string) {
  const root = join(cacheHome, 'satchel', 'v8');
  const folders = await readdir(root);
  expect(folders).toHaveLength(1);
  const folder = join(root, folders[0] ?? '');
  const files = new Map<string, { bytes: Buffer; mtimeMs: number }>();
  for (const name of await readdir(folder)) {
    const path = join(folder, name);
    files.set(name, { bytes: await readFile(path), mtimeMs: (await stat(path)).mtimeMs });
  }
  return { folder: folders[0] ?? '', files };
}

describe("the built binary's code cache", () => {
  it('has data from the build that this Node takes for every chunk', async () => {
    const dist = dirname(main);
    const chunks = (await readdir(dist)).filter((name) => name.endsWith('.cjs'));
    expect(chunks).toContain('satchel.cjs');
    for (const name of chunks) {
      const filename = join(dist, name);
      const data = await readFile(join(builtData(dist), name));
      const script = chunkScript(filename, await readFile(filename, 'utf8'), data);
      expect(script.cachedDataRejected, name).toBe(false);
    }
  });

  it.each([
    ["where the build's data matches", {}],
    ['under other V8 flags', OTHER_FLAGS],
  ])(
    'keeps what a first start compiled %s, and the next start uses it and writes nothing',
    async (_, env) => {
      const home = join(dir, `fresh-${Object.keys(env).length}`);
      const first = ls(home, env);
      expect(first).toMatchObject({ code: 0, stderr: '' });
      expect(first.stdout).toContain('todo.md');

      const written = await cacheFiles(home);
      expect(written.folder).toMatch(new RegExp(`-${process.version}-${process.arch}$`));
      expect([...written.files.keys()]).toContain('satchel.cjs');
      expect([...written.files.keys()].every((name) => name.endsWith('.cjs'))).toBe(true);

      expect(ls(home, env)).toEqual(first);
      const after = await cacheFiles(home);
      for (const [name, file] of written.files) {
        expect(after.files.get(name)?.mtimeMs, name).toBe(file.mtimeMs);
      }
    },
  );

  it('compiles from source past damaged data, and writes it again', async () => {
    const home = join(dir, 'damaged');
    const good = ls(home);
    const { folder, files } = await cacheFiles(home);
    const garbage = Buffer.from('not what V8 wrote '.repeat(64));
    for (const name of files.keys()) {
      await writeFile(join(home, 'satchel', 'v8', folder, name), garbage);
    }

    expect(ls(home)).toEqual(good);
    const repaired = await cacheFiles(home);
    expect(repaired.folder).toBe(folder);
    for (const [name, file] of repaired.files) {
      expect(file.bytes.equals(garbage), name).toBe(false);
    }
  });

  it('keeps the two newest folders of other builds when it makes its own', async () => {
    const home = join(dir, 'stale');
    const v8 = join(home, 'satchel', 'v8');
    const stale = ['old', 'older', 'oldest'].map((name) => join(v8, `${name}-${process.version}`));
    for (const [i, folder] of stale.entries()) {
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, 'satchel.cjs'), 'old');
      const made = new Date(Date.now() - (i + 1) * 60_000);
      await utimes(folder, made, made);
    }

    expect(ls(home)).toMatchObject({ code: 0, stderr: '' });
    const left = await readdir(v8);
    expect(left).toHaveLength(3);
    expect(left).toEqual(
      expect.arrayContaining([`old-${process.version}`, `older-${process.version}`]),
    );
    expect(existsSync(stale[2] ?? '')).toBe(false);
  });

  it('ignores a relative XDG_CACHE_HOME and uses ~/.cache', async () => {
    const run = ls('relative-cache');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(join(dir, 'relative-cache'))).toBe(false);
    expect((await readdir(join(dir, '.cache', 'satchel', 'v8'))).length).toBe(1);
  });

  it('runs the same where no cache can be written', async () => {
    const notAFolder = join(dir, 'a-file');
    await writeFile(notAFolder, '');
    const run = ls(notAFolder);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('todo.md');
  });
});
