import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE, openSatchel } from './open.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'satchel-open-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('openSatchel stores configuration', () => {
  it('keeps metadata where the configuration says, and finds it again on reopen', async () => {
    const data = await tempDir();
    const elsewhere = join(await tempDir(), 'meta.db');
    const stores = { metadata: { kind: 'sqlite' as const, file: elsewhere } };
    const first = await openSatchel({ data, stores });
    await first.createWorkspace('ws');
    await first.writeFile('ws', '/a.txt', 'hello');
    await first.close();
    await access(elsewhere);
    await expect(access(join(data, DATABASE_FILE))).rejects.toThrow();
    const again = await openSatchel({ data, stores });
    expect((await again.readText('ws', '/a.txt')).text).toBe('hello');
    await again.close();
  });
});
