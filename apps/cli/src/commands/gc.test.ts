/** `satchel gc`: dry run, a real run, --grace, --json, refusal for non-admins, usage errors. */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REMOTE_TARGET, TestCli } from '../testing.js';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
  await cli.run(['ws', 'create', 'keep']);
  await cli.run(['ws', 'create', 'doomed']);
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel gc', () => {
  it('reports in a dry run, removes in a real one, and then finds nothing more', async () => {
    const big = randomBytes(100_000);
    expect((await cli.in('doomed', ['put', '-', '/big.bin'], { stdin: big })).code).toBe(0);
    expect((await cli.in('keep', ['put', '-', '/k.txt'], { stdin: 'kept' })).code).toBe(0);
    expect((await cli.run(['ws', 'rm', 'doomed', '--yes'])).code).toBe(0);

    const young = await cli.run(['gc', '--dry-run']);
    expect(young.code).toBe(0);
    expect(young.stdout).toMatch(/^would remove 0 contents, 0 B\n$/);

    const dry = await cli.run(['gc', '--dry-run', '--grace', '0']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^would remove 1 contents, 97\.7 KiB\n {2}[0-9a-f]{64}\n$/);

    const real = await cli.run(['gc', '--grace', '0', '--json']);
    expect(real.code).toBe(0);
    expect(JSON.parse(real.stdout)).toMatchObject({
      dryRun: false,
      removed: 1,
      bytesFreed: 100_000,
      graceSeconds: 0,
    });
    expect((await cli.run(['gc', '--grace', '0'])).stdout).toBe('removed 0 contents, 0 B\n');
    const fsck = await cli.run(['fsck']);
    expect(fsck.code).toBe(0);
    expect(fsck.stdout).not.toContain('orphaned');
    expect((await cli.in('keep', ['cat', '/k.txt'])).stdout).toBe('kept');
  });

  it('refuses a bad --grace with a usage error, and non-admins with FORBIDDEN', async () => {
    const bad = await cli.run(['gc', '--grace', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--grace');
    if (REMOTE_TARGET) return; // `--as` works on a data directory only
    const key = await cli.principal('bob');
    const refused = await cli.run(['--as', key, 'gc', '--dry-run']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('FORBIDDEN');
  });

  it('shows examples in its help', async () => {
    const help = await cli.run(['gc', '--help']);
    expect(help.stdout).toContain('satchel gc --dry-run');
    expect(help.stdout).toContain('--grace <duration>');
  });
});
