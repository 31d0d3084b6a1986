/** End to end: the real `satchel` process, its exit codes and stdin/stdout piping. */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));

let data: string;
beforeEach(async () => {
  data = await mkdtemp(join(tmpdir(), 'satchel-main-'));
});
afterEach(async () => {
  await rm(data, { recursive: true, force: true });
});

function satchel(args: string[], input?: Buffer) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: packageDir,
    input,
    env: { ...process.env, SATCHEL_DATA: data, SATCHEL_WORKSPACE: 'proc', NO_COLOR: '1' },
    timeout: 30_000,
  });
}

describe('the satchel process', () => {
  it('pipes stdin in and stdout out, and exits with the documented codes', () => {
    expect(satchel(['ws', 'create', 'proc']).status).toBe(0);
    const content = Buffer.from('line one\n\u0000binary tail\n');
    const put = satchel(['put', '-', '/piped.bin'], content);
    expect(put.stderr.toString()).toBe('');
    expect(put.status).toBe(0);
    expect(put.stdout.toString()).toBe(`wrote /piped.bin (${content.length} bytes, version 1)\n`);

    const cat = satchel(['cat', '/piped.bin']);
    expect(cat.status).toBe(0);
    expect(Buffer.compare(cat.stdout, content)).toBe(0);

    const missing = satchel(['cat', '/nope']);
    expect(missing.status).toBe(3);
    expect(missing.stdout.length).toBe(0);
    expect(missing.stderr.toString().split('\n')[0]).toBe(
      'satchel: file /nope not found (NOT_FOUND)',
    );
  }, 120_000);
});
