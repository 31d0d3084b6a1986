/**
 * Comments and share links on PostgreSQL, with two engines on one schema: a thread added on one
 * node is listed (anchor moved) on the other, and a share link's download limit holds when both
 * nodes serve it at once. Skipped where no test database is reachable (test-support/postgres.ts).
 */
import { isSatchelError } from '@satchel/client/errors.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestSchema, postgresUrlForTests } from '../test-support/postgres.js';
import { readAll, tempDir } from '../test-support/temp.js';
import { openSatchel } from './open.js';

const url = postgresUrlForTests();
let closing: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of closing) await step();
  closing = [];
});

describe.skipIf(url === null)('comments and share links on PostgreSQL, two nodes', () => {
  it('share threads between nodes and hold a download limit under concurrent views', async () => {
    const schema = await createTestSchema(url ?? '');
    const data = await tempDir('satchel-review-nodes-');
    const open = () => openSatchel({ data, stores: { metadata: schema.config } });
    const [a, b] = [await open(), await open()];
    closing.push(async () => {
      await Promise.all([a.close(), b.close()]);
      await schema.drop();
    });
    await a.createWorkspace('ws');
    await a.writeFile('ws', '/r.md', 'one\ntwo\nthree\n');
    const c = await a.addComment('ws', { path: '/r.md', startLine: 2, endLine: 3, body: 'hm' });
    const head = await b.writeFile('ws', '/r.md', 'zero\none\ntwo\nthree\n');
    expect((await b.listComments('ws', { status: 'open' })).items).toMatchObject([
      { id: c.id, current: { version: head.seq, startLine: 3, endLine: 4 }, outdated: false },
    ]);
    await b.resolveComment('ws', c.id);
    expect((await a.getComment('ws', c.id)).resolved).toBe(true);

    const link = await a.createShareLink('ws', { path: '/r.md', maxDownloads: 3 });
    const views = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? a : b).openShareLink(link.token).then(async (view) => {
          if (view.type === 'file') await readAll(view.file.body);
        }),
      ),
    );
    for (const v of views) {
      if (v.status === 'rejected' && !isSatchelError(v.reason, 'FORBIDDEN')) throw v.reason;
    }
    expect(views.filter((v) => v.status === 'fulfilled')).toHaveLength(3);
    expect((await b.listShareLinks('ws')).items[0]).toMatchObject({
      downloads: 3,
      state: 'used_up',
    });
  });
});
