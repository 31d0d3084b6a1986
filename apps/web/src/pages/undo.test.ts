/** Undoing an agent's session from the web app, as alice, over a real server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb, TestBrowser, type WebFixture } from '../test-support/server.js';

let fx: WebFixture;
let alice: TestBrowser;
beforeAll(async () => {
  fx = await startWeb();
  await fx.builder.writeFile('report', '/notes.txt', 'one\ntwo\n');
  await fx.builder.writeFile('report', '/notes.txt', 'one\nTWO\n', { session: 'run-9' });
  await fx.builder.writeFile('report', '/made.txt', 'by the run\n', { session: 'run-9' });
  await fx.builder.writeFile('report', '/shared.txt', 'by the run\n', { session: 'run-9' });
  await fx.builder.writeFile('report', '/shared.txt', 'fixed by a person\n');
  alice = new TestBrowser(fx.url);
  await alice.signIn(await fx.loginUrl());
});
afterAll(async () => {
  await fx.close();
});

async function page(path: string): Promise<string> {
  const response = await alice.get(path);
  expect(response.status, path).toBe(200);
  return response.text();
}

describe('undo of a session', () => {
  it('previews it with each diff and the paths left alone, then undoes it in one seq, undoably', async () => {
    const preview = await page('/w/report/undo?session=run-9');
    expect(preview).toContain('Undo session run-9?');
    expect(preview).toContain('1 to put back, 1 to remove, 0 to bring back; 1 left as they are.');
    expect(preview).toContain('<span class="line del">-TWO\n</span>');
    expect(preview).toContain('<span class="line add">+two\n</span>');
    expect(preview).toMatch(
      /<code>\/shared.txt<\/code>: someone else changed it after this session/,
    );
    const csrf = /name="csrf" value="([^"]+)"/.exec(preview)?.[1] ?? '';
    const head = /name="head" value="(\d+)"/.exec(preview)?.[1] ?? '';
    const form = { session: 'run-9', head };

    // No CSRF token: refused, nothing written.
    expect((await alice.post('/w/report/undo', form)).status).toBe(403);
    expect((await fx.builder.getWorkspace('report')).seq).toBe(Number(head));

    const done = await alice.post('/w/report/undo', { ...form, csrf });
    expect(done.status).toBe(200);
    const seq = Number(head) + 1;
    const html = await done.text();
    expect(html).toContain(`2 changes written as seq ${seq}, session <code>undo:${seq}</code>`);
    expect((await fx.builder.readText('report', '/notes.txt')).text).toBe('one\ntwo\n');
    await expect(fx.builder.stat('report', '/made.txt')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await fx.builder.readText('report', '/shared.txt')).text).toBe('fixed by a person\n');
    expect((await fx.builder.stat('report', '/notes.txt')).author).toBe('alice');

    // The same confirmation again names a head that moved on: refused.
    expect((await alice.post('/w/report/undo', { ...form, csrf })).status).toBe(412);
    // The undo is a session of its own, undone the same way.
    expect(html).toContain(`href="/w/report/undo?session=undo%3A${seq}"`);
    const again = await page(`/w/report/undo?session=undo%3A${seq}`);
    expect(again).toContain('1 to put back, 0 to remove, 1 to bring back');
  });

  it('asks which session, and shows a stranger nothing', async () => {
    expect((await alice.get('/w/report/undo')).status).toBe(400);
    const bob = new TestBrowser(fx.url);
    await bob.signIn(await fx.loginUrl('bob'));
    expect((await bob.get('/w/report/undo?session=run-9')).status).toBe(404);
  });
});
