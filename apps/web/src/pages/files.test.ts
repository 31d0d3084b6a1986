/**
 * Side-by-side diff, activity (live), a session's changes, bounded previews, create folder /
 * rename / delete with undo, and resumable uploads as alice, over a real server.
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb, TestBrowser, type WebFixture } from '../test-support/server.js';

let fx: WebFixture;
let alice: TestBrowser;
let csrf: string;
beforeAll(async () => {
  fx = await startWeb();
  await fx.builder.writeFile('report', '/notes.txt', 'one\ntwo\nthree\n', { session: 'run-7' });
  await fx.builder.writeFile('report', '/notes.txt', 'one\n2\nthree\nfour\n', { session: 'run-8' });
  await fx.builder.writeFile('report', '/other.txt', 'x\n', { session: 'run-8' });
  alice = new TestBrowser(fx.url);
  await alice.signIn(await fx.loginUrl());
  csrf = await alice.csrf();
});
afterAll(async () => {
  await fx.close();
});

async function page(path: string): Promise<string> {
  const response = await alice.get(path);
  expect(response.status, path).toBe(200);
  return response.text();
}

describe('review', () => {
  it('shows a diff side by side, old lines left and new right, with a toggle back', async () => {
    const { items } = await fx.builder.listVersions('report', '/notes.txt');
    const [to, from] = [items[0]?.seq, items[1]?.seq];
    const html = await page(`/w/report/diff/notes.txt?from=${from}&to=${to}&view=split`);
    expect(html).toContain('<table class="split">');
    expect(html).toMatch(/<td class="ln">2<\/td><td class="del">.*removed: <\/span>two<\/td>/);
    expect(html).toMatch(/<td class="ln">2<\/td><td class="add">.*added: <\/span>2<\/td>/);
    expect(html).toMatch(/<td class="ln">4<\/td><td class="add">.*four<\/td>/);
    expect(html).toContain('aria-current="page">Side by side</a>');
    const unified = await page(`/w/report/diff/notes.txt?from=${from}&to=${to}`);
    expect(unified).toContain('<span class="line del">-two\n</span>');
  });

  it('lists the activity newest first, and the live request answers with a change made after', async () => {
    const html = await page('/w/report/activity');
    expect(html.indexOf('/other.txt')).toBeLessThan(html.indexOf('/notes.txt'));
    const live = /hx-get="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? '';
    expect(live).toMatch(/^\/w\/report\/activity\/live\?after=\d+$/);
    const waiting = alice.get(live);
    await fx.builder.writeFile('report', '/late.txt', 'late\n', { session: 'run-9' });
    const rows = await (await waiting).text();
    expect(rows).toContain('/late.txt');
    expect(rows).toContain('<a href="/w/report/session/run-9">run-9</a>');
    expect(rows).toMatch(/hx-get="\/w\/report\/activity\/live\?after=\d+"/);
  });

  it('lists what one session did, and nothing of the others', async () => {
    const html = await page('/w/report/session/run-8');
    expect(html).toContain('2 changes by builder');
    expect(html).toContain('/notes.txt');
    expect(html).toContain('/other.txt');
    expect(html).not.toContain('/late.txt');
  });
});

describe('bounded previews', () => {
  it('shows the first 1,000 lines of a 5 MB text file, with Show more and Download', async () => {
    const line = 'The quick brown fox jumps over the lazy dog, again and again.\n';
    const text = line.repeat(Math.ceil((5 * 2 ** 20) / line.length));
    await fx.builder.writeFile('report', '/large.txt', text);
    const html = await page('/w/report/file/large.txt');
    expect(html.length).toBeLessThan(300_000);
    expect(html).toContain('id="L1000"');
    expect(html).not.toContain('id="L1001"');
    expect(html).toContain('Showing the first 1,000 lines.');
    expect(html).toContain('<a href="?lines=4000">Show more</a>');
    const more = await page('/w/report/file/large.txt?lines=4000');
    expect(more).toContain('id="L4000"');
    expect((await alice.get('/w/report/file/large.txt?lines=-1')).status).toBe(400);
  });
});

describe('changing the tree, with undo', () => {
  it('creates a folder, renames a file, deletes it, and undoes the delete', async () => {
    const made = await alice.post('/w/report/mkdir/', { csrf, name: 'drafts' });
    expect(made.status).toBe(303);
    expect((await fx.builder.stat('report', '/drafts')).type).toBe('directory');

    const moved = await alice.post('/w/report/rename/other.txt', { csrf, to: '/drafts/o.txt' });
    const folder = moved.headers.get('Location') ?? '';
    expect(folder).toMatch(/^\/w\/report\/tree\/drafts\?done=Moved.+&undo=web-/);
    expect((await fx.builder.readText('report', '/drafts/o.txt')).text).toBe('x\n');

    const confirm = await page('/w/report/delete/drafts/o.txt');
    expect(confirm).toContain('Delete o.txt?');
    const deleted = await alice.post('/w/report/delete/drafts/o.txt', { csrf });
    const after = await page(deleted.headers.get('Location') ?? '');
    expect(after).toContain('Deleted /drafts/o.txt.');
    const session = /name="session" value="([^"]+)"/.exec(after)?.[1] ?? '';
    await expect(fx.builder.stat('report', '/drafts/o.txt')).rejects.toThrow();

    expect((await alice.post('/w/report/undo-change', { session, back: '/drafts' })).status).toBe(
      403,
    );
    const undone = await alice.post('/w/report/undo-change', { csrf, session, back: '/drafts' });
    expect(undone.status).toBe(303);
    expect((await fx.builder.readText('report', '/drafts/o.txt')).text).toBe('x\n');
    expect(await page(undone.headers.get('Location') ?? '')).toContain('Undone.');
  });
});

describe('undo refuses what is not yours', () => {
  it('undoes only your own changes of a session, whatever label a link names', async () => {
    await fx.builder.writeFile('report', '/agent.txt', 'mine\n', { session: 'web-0000-aaaa' });
    const undone = await alice.post('/w/report/undo-change', { csrf, session: 'web-0000-aaaa' });
    expect(await page(undone.headers.get('Location') ?? '')).toContain('Nothing to undo.');
    expect((await fx.builder.readText('report', '/agent.txt')).text).toBe('mine\n');
    const bad = await alice.post('/w/report/undo-change', { csrf, session: 'run-7' });
    expect(bad.status).toBe(400);
  });
});

describe('resumable uploads', () => {
  it('resumes at the offset the server kept after a part was cut off, and completes verified', async () => {
    const bytes = new Uint8Array(3 * 1024 * 1024).fill(7);
    const headers = { 'X-CSRF-Token': csrf };
    const created = await alice.post(
      '/w/report/uploads',
      { path: '/up/big.bin', size: String(bytes.length) },
      headers,
    );
    expect(created.status).toBe(201);
    const { id, session } = (await created.json()) as { id: string; session: string };
    expect(session).toMatch(/^web-/);
    const url = `${fx.url}/w/report/uploads/${id}`;
    const patch = (offset: number, body: Uint8Array<ArrayBuffer>) =>
      fetch(url, {
        method: 'PATCH',
        body,
        headers: {
          Origin: fx.url,
          Cookie: alice.cookie ?? '',
          'X-CSRF-Token': csrf,
          'Upload-Offset': String(offset),
        },
      });
    expect((await patch(0, bytes.subarray(0, 1024 * 1024))).status).toBe(200);
    // A part at the wrong offset is refused with the offset to go on from.
    expect((await patch(5, bytes.subarray(0, 10))).status).toBe(409);
    const now = (await (await alice.get(`/w/report/uploads/${id}`, headers)).json()) as {
      offset: number;
    };
    expect(now.offset).toBe(1024 * 1024);
    expect((await patch(now.offset, bytes.subarray(now.offset))).status).toBe(200);
    const done = await alice.post(`/w/report/uploads/${id}/complete`, {}, headers);
    const result = (await done.json()) as { hash: string; next: string };
    expect(result.hash).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(result.next).toMatch(/^\/w\/report\/tree\/up\?done=.+&undo=web-/);
    expect((await fx.builder.stat('report', '/up/big.bin')).session).toBe(session);
    // Without the CSRF token nothing starts.
    expect((await alice.post('/w/report/uploads', { path: '/x', size: '1' })).status).toBe(403);
  });

  it('keeps what arrived of a part whose connection the client cut, and resumes from there', async () => {
    const headers = { 'X-CSRF-Token': csrf };
    const size = 4 * 1024 * 1024;
    const bytes = new Uint8Array(size).map((_, i) => (i * 31) % 251);
    const created = await alice.post(
      '/w/report/uploads',
      { path: '/up/cut.bin', size: String(size) },
      headers,
    );
    const { id } = (await created.json()) as { id: string };
    // A PATCH that declares the whole file, sends 1 MiB, and loses its connection.
    const req = httpRequest(`${fx.url}/w/report/uploads/${id}`, {
      method: 'PATCH',
      headers: {
        Origin: fx.url,
        Cookie: alice.cookie ?? '',
        'X-CSRF-Token': csrf,
        'Upload-Offset': '0',
        'Content-Length': String(size),
      },
    });
    req.on('error', () => undefined);
    await new Promise<void>((resolve) =>
      req.write(bytes.subarray(0, 1024 * 1024), () => resolve()),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    req.destroy();
    const { offset } = (await (await alice.get(`/w/report/uploads/${id}`, headers)).json()) as {
      offset: number;
    };
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(1024 * 1024);
    const rest = await fetch(`${fx.url}/w/report/uploads/${id}`, {
      method: 'PATCH',
      body: bytes.subarray(offset),
      headers: {
        Origin: fx.url,
        Cookie: alice.cookie ?? '',
        ...headers,
        'Upload-Offset': String(offset),
      },
    });
    expect(rest.status).toBe(200);
    const done = await alice.post(`/w/report/uploads/${id}/complete`, {}, headers);
    const { hash } = (await done.json()) as { hash: string };
    expect(hash).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
});
