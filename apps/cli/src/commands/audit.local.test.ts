/** `satchel audit --verify` on a data directory whose log was cut (local only: it edits files). */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
  await cli.run(['ws', 'create', 'w']);
  await cli.in('w', ['put', '-', '/a.txt'], { stdin: 'a' });
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel audit --verify', () => {
  it('exits 8 when the tail of the log was cut off', async () => {
    expect((await cli.run(['audit', '--verify'])).code).toBe(0);
    // A checkpoint naming entries the log does not hold: the tail was cut off.
    const file = join(cli.data, 'audit.checkpoint');
    const checkpoint = JSON.parse(await readFile(file, 'utf8')) as { idx: number; hash: string };
    await writeFile(file, JSON.stringify({ ...checkpoint, idx: checkpoint.idx + 1000 }));
    const broken = await cli.run(['audit', '--verify']);
    expect(broken.code).toBe(8);
    expect(broken.stdout).toMatch(/^audit log BROKEN at entry \d+: tail truncated: .+\n$/);
    const brokenJson = await cli.run(['audit', '--verify', '--json']);
    expect(brokenJson.code).toBe(8);
    expect(JSON.parse(brokenJson.stdout)).toMatchObject({ ok: false });
  });
});
