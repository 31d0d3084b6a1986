/** writeFileByHash: content the workspace holds, by its SHA-256, with writeFile's conditions. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { catFile, openTemp } from '../test-support/temp.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('writeFileByHash', () => {
  it('writes a new version from content of any version of the workspace, history included', async () => {
    const { satchel } = await openTemp();
    const big = 'x'.repeat(200_000);
    await satchel.writeFile('ws', '/a.txt', big);
    await satchel.writeFile('ws', '/a.txt', 'replaced');
    const info = await satchel.writeFileByHash('ws', '/copy/a.txt', sha(big));
    expect(info).toMatchObject({ path: '/copy/a.txt', size: 200_000, hash: sha(big) });
    expect((await catFile(satchel, '/copy/a.txt')).toString()).toBe(big);
    const small = await satchel.writeFileByHash('ws', '/b.md', sha('replaced'));
    expect(small.contentType).toBe('text/markdown');
  });

  it('honours ifMatch and ifNoneMatch, and never reaches content of another workspace', async () => {
    const { satchel } = await openTemp();
    await satchel.createWorkspace('other');
    await satchel.writeFile('other', '/secret.txt', 'secret');
    await expect(satchel.writeFileByHash('ws', '/s.txt', sha('secret'))).rejects.toMatchObject({
      code: 'NOT_FOUND',
      data: { reason: 'content_unknown' },
    });
    const head = await satchel.writeFile('ws', '/f.txt', 'one');
    await satchel.writeFile('ws', '/g.txt', 'two');
    await expect(
      satchel.writeFileByHash('ws', '/f.txt', sha('two'), { ifMatch: head.seq + 5 }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    await expect(
      satchel.writeFileByHash('ws', '/f.txt', sha('two'), { ifNoneMatch: '*' }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    await expect(satchel.writeFileByHash('ws', '/f.txt', 'not-a-hash')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect((await satchel.stat('ws', '/f.txt')).seq).toBe(head.seq);
    const ok = await satchel.writeFileByHash('ws', '/f.txt', sha('two'), { ifMatch: head.seq });
    expect((await catFile(satchel, '/f.txt')).toString()).toBe('two');
    expect(ok.seq).toBeGreaterThan(head.seq);
  });
});
