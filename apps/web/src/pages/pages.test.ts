/** Browsing, previews, untrusted content and history as alice, over a real server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb, TestBrowser, type WebFixture } from '../test-support/server.js';

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABpfZFQAAAAABJRU5ErkJggg==',
  'base64',
);
const EVIL_HTML = '<html><body><script>document.title = "pwned"</script>hi</body></html>';

let fx: WebFixture;
let alice: TestBrowser;
beforeAll(async () => {
  fx = await startWeb();
  const files = Array.from({ length: 450 }, (_, i) => ({
    path: `/big/f${String(i).padStart(4, '0')}.txt`,
    content: `file ${i}\n`,
  }));
  await fx.builder.writeFiles('report', files, { session: 'run-7' });
  await fx.builder.writeFile(
    'report',
    '/docs/summary.md',
    '# Summary\n\n<script>alert(1)</script>\n\n[click](javascript:alert(2))\n',
    { session: 'run-7' },
  );
  await fx.builder.writeFile('report', '/page.html', EVIL_HTML);
  await fx.builder.writeFile(
    'report',
    '/logo.svg',
    '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
  );
  await fx.builder.writeFile('report', '/pixel.png', PNG);
  await fx.builder.writeFile('report', '/data.bin', Buffer.from([0, 1, 2, 3, 255]));
  await fx.builder.writeFile('report', '/notes.txt', 'one\ntwo\nthree\n', { session: 'run-7' });
  await fx.builder.writeFile('report', '/notes.txt', 'one\n2\nthree\nfour\n', { session: 'run-8' });
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

describe('browsing', () => {
  it('lists the workspaces alice may see, and none to bob', async () => {
    expect(await page('/')).toContain('<a href="/w/report/tree/">report</a>');
    const bob = new TestBrowser(fx.url);
    await bob.signIn(await fx.loginUrl('bob'));
    expect(await (await bob.get('/')).text()).toContain('No workspace is shared with you yet.');
    expect((await bob.get('/w/report/tree/')).status).toBe(404);
    expect((await bob.get('/w/report/raw/notes.txt')).status).toBe(404);
  });

  it('shows a folder a page at a time, with author, session and size, and the rest on demand', async () => {
    const html = await page('/w/report/tree/big');
    expect(html).toContain('450 entries');
    expect(html.match(/<tr><td class="name">/g)?.length).toBe(200);
    expect(html).toContain('<td>builder</td><td>run-7</td>');
    const more = /hx-get="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? '';
    expect(more).toMatch(/^\/w\/report\/tree\/big\?cursor=.+&rows=1$/);
    // What htmx puts in place of "Show more": the next rows alone, and the next link.
    const rows = await page(more);
    expect(rows.startsWith('<tr>')).toBe(true);
    expect(rows.match(/<tr><td class="name">/g)?.length).toBe(200);
    expect(rows).toContain('f0200.txt');
    expect(rows).not.toContain('<html');
    // Breadcrumbs lead back up.
    expect(await page('/w/report/file/big/f0001.txt')).toContain(
      '<a href="/w/report/tree/big">big</a>',
    );
  });

  it('unauthenticated visitors get the sign-in explanation, not the workspace', async () => {
    const response = await fetch(`${fx.url}/w/report/tree/`);
    expect(response.status).toBe(401);
    expect(await response.text()).toContain('satchel login-link');
  });
});

describe('previews', () => {
  it('renders Markdown sanitised: an agent’s script and javascript: link stay inert', async () => {
    const html = await page('/w/report/file/docs/summary.md');
    expect(html).toContain('<h1>Summary</h1>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toMatch(/href="javascript:/i);
  });

  it('shows text with numbered lines, and a binary file as type, size and hash', async () => {
    const text = await page('/w/report/file/notes.txt');
    expect(text).toContain('<span class="line" id="L4">four');
    const binary = await page('/w/report/file/data.bin');
    expect(binary).toContain('A binary file');
    expect(binary).toMatch(/<dd class="hash">[0-9a-f]{64}<\/dd>/);
  });

  it('never serves HTML or SVG inline: source on the page, raw as an attachment under a sandbox', async () => {
    const html = await page('/w/report/file/page.html');
    expect(html).toContain('never opened as a page here');
    expect(html).toContain('&lt;script&gt;document.title');
    expect(html).not.toContain('<script>document');
    for (const path of ['/w/report/raw/page.html', '/w/report/raw/logo.svg']) {
      const raw = await alice.get(path);
      expect(raw.status).toBe(200);
      expect(raw.headers.get('Content-Disposition')).toMatch(/^attachment; filename=/);
      expect(raw.headers.get('Content-Type')).toBe('application/octet-stream');
      expect(raw.headers.get('Content-Security-Policy')).toBe(
        "default-src 'none'; frame-ancestors 'self'; sandbox",
      );
      expect(raw.headers.get('X-Content-Type-Options')).toBe('nosniff');
    }
  });

  it('shows a PNG inline from the raw route, as image/png under a CSP with no sources', async () => {
    expect(await page('/w/report/file/pixel.png')).toContain(
      '<img class="image" src="/w/report/raw/pixel.png" alt="Preview of pixel.png"/>',
    );
    const raw = await alice.get('/w/report/raw/pixel.png');
    expect(raw.headers.get('Content-Type')).toBe('image/png');
    expect(raw.headers.get('Content-Disposition')).toMatch(/^inline/);
    expect(Buffer.from(await raw.arrayBuffer())).toEqual(PNG);
  });
});

describe('history', () => {
  it('lists versions with who and which session, and diffs two of them', async () => {
    const history = await page('/w/report/history/notes.txt');
    expect(history).toContain('<a href="/w/report/session/run-8">run-8</a>');
    expect(history).toContain('<a href="/w/report/session/run-7">run-7</a>');
    const [newer, older] = [...history.matchAll(/name="to" value="(\d+)"/g)].map((m) => m[1]);
    const diff = await page(`/w/report/diff/notes.txt?from=${newer}&to=${older}`);
    expect(diff).toContain(`from version ${older} to ${newer}`);
    expect(diff).toContain('<span class="line del">-two\n</span>');
    expect(diff).toContain('<span class="line add">+2\n</span>');
    expect(diff).toContain('<span class="line add">+four\n</span>');
  });

  it('restores an old version after confirmation, with the CSRF token, as alice in session web', async () => {
    const { items } = await fx.builder.listVersions('report', '/notes.txt');
    const [head, first] = [items[0]?.seq ?? 0, items[1]?.seq ?? 0];
    const confirm = await page(`/w/report/restore/notes.txt?version=${first}`);
    expect(confirm).toContain(`Restore version ${first} of notes.txt?`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(confirm)?.[1] ?? '';
    const form = { version: String(first), head: String(head) };

    expect((await alice.post('/w/report/restore/notes.txt', form)).status).toBe(403);
    expect((await fx.builder.readText('report', '/notes.txt')).text).toBe('one\n2\nthree\nfour\n');

    const done = await alice.post('/w/report/restore/notes.txt', { ...form, csrf });
    expect(done.status).toBe(303);
    expect(done.headers.get('Location')).toBe('/w/report/file/notes.txt');
    const info = await fx.builder.stat('report', '/notes.txt');
    expect({ author: info.author, session: info.session }).toEqual({
      author: 'alice',
      session: 'web',
    });
    expect((await fx.builder.readText('report', '/notes.txt')).text).toBe('one\ntwo\nthree\n');

    // The confirmation was for the head it named: a second post finds a newer head, and refuses.
    const stale = await alice.post('/w/report/restore/notes.txt', { ...form, csrf });
    expect(stale.status).toBe(412);
  });
});
