/** Comments on a file's page, as alice over a real server; the agent answers through core. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb, TestBrowser, type WebFixture } from '../test-support/server.js';

let fx: WebFixture;
let alice: TestBrowser;
beforeAll(async () => {
  fx = await startWeb();
  await fx.builder.writeFile('report', '/plan.txt', 'a\nb\nc\nd\ne\nf\n', { session: 'run-1' });
  alice = new TestBrowser(fx.url);
  await alice.signIn(await fx.loginUrl());
});
afterAll(async () => {
  await fx.close();
});

describe('comments', () => {
  it('anchors a thread to lines 3–5, takes replies, resolves and reopens, with CSRF', async () => {
    const page = await (await alice.get('/w/report/file/plan.txt')).text();
    expect(page).toContain('No comments on this file yet.');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const version = /name="version" value="(\d+)"/.exec(page)?.[1] ?? '';
    const form = { version, startLine: '3', endLine: '5', body: 'Why these three?' };

    expect((await alice.post('/w/report/comment/plan.txt', form)).status).toBe(403);
    const added = await alice.post('/w/report/comment/plan.txt', { ...form, csrf });
    expect(added.status).toBe(303);
    expect(added.headers.get('Location')).toMatch(/^\/w\/report\/file\/plan\.txt#thread-/);

    // The agent sees it, anchored where alice put it, and replies.
    const { items } = await fx.builder.listComments('report', { path: '/plan.txt' });
    const thread = items[0];
    expect(thread).toMatchObject({ author: 'alice', body: 'Why these three?' });
    expect(thread?.anchor).toMatchObject({ startLine: 3, endLine: 5 });
    const id = thread?.id ?? '';
    await fx.builder.addComment('report', { parentId: id, body: 'Fixed in run-2.' });

    const shown = await (await alice.get('/w/report/file/plan.txt')).text();
    expect(shown).toContain('On lines 3–5 of version');
    expect(shown).toContain('<pre class="excerpt">c\nd\ne</pre>');
    expect(shown).toContain('Fixed in run-2.');
    expect(shown).toContain('1 thread, 1 open.');

    const resolved = await alice.post('/w/report/resolve/plan.txt', { id, resolved: 'true', csrf });
    expect(resolved.status).toBe(303);
    expect((await fx.builder.getComment('report', id)).resolved).toBe(true);
    const after = await (await alice.get('/w/report/file/plan.txt')).text();
    expect(after).toContain('Resolved by <strong>alice</strong>');
    expect(after).toContain('>Reopen</button>');

    await alice.post('/w/report/resolve/plan.txt', { id, resolved: 'false', csrf });
    expect((await fx.builder.getComment('report', id)).resolved).toBe(false);
  });

  it('says a thread is outdated once its lines change', async () => {
    await fx.builder.writeFile('report', '/plan.txt', 'a\nb\nC!\nd\ne\nf\n');
    const html = await (await alice.get('/w/report/file/plan.txt')).text();
    expect(html).toContain('These lines have changed since the comment was written.');
    expect(html).toContain('<span class="badge outdated">Outdated</span>');
  });

  it('refuses a comment without a body or with a bad line, as a page, not a fault', async () => {
    const csrf = await alice.csrf('/w/report/file/plan.txt');
    const empty = await alice.post('/w/report/comment/plan.txt', {
      csrf,
      startLine: '1',
      body: '',
    });
    expect(empty.status).toBe(400);
    const bad = await alice.post('/w/report/comment/plan.txt', {
      csrf,
      startLine: 'x',
      body: 'hi',
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('startLine must be a whole number');
  });
});
