/** Claim, access, audit and share links over a real server, as alice and as a visitor. */
import { get as httpGet, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb, TestBrowser, type WebFixture } from '../test-support/server.js';

let fx: WebFixture;
let alice: TestBrowser;
let csrf: string;
let now = Date.now();
beforeAll(async () => {
  fx = await startWeb({}, { clock: () => now });
  await fx.builder.writeFile('report', '/docs/a.txt', 'alpha\n');
  await fx.builder.writeFile('report', '/docs/deep/b.txt', 'beta\n');
  await fx.builder.writeFile('report', '/out.txt', 'result\n');
  alice = new TestBrowser(fx.url);
  await alice.signIn(await fx.loginUrl());
  csrf = await alice.csrf('/claim');
});
afterAll(async () => {
  await fx.close();
});

async function html(path: string, status = 200): Promise<string> {
  const response = await alice.get(path);
  expect(response.status, path).toBe(status);
  return response.text();
}

describe('claim', () => {
  it('fills the code from the link, accepts only with CSRF, and alice is owner after', async () => {
    const offer = await fx.builder.offerTransfer('report', {});
    const form = await html(`/claim?code=${encodeURIComponent(offer.code)}`);
    expect(form).toContain(`value="${offer.code}"`);
    expect(await html('/w/report/access')).toContain('<strong id="my-role">editor</strong>');

    expect((await alice.post('/claim', { code: offer.code })).status).toBe(403);
    const done = await alice.post('/claim', { code: offer.code, csrf });
    expect(done.status).toBe(303);
    expect(done.headers.get('Location')).toBe('/w/report/access?claimed=1');
    const page = await html('/w/report/access?claimed=1');
    expect(page).toContain('Transfer accepted');
    expect(page).toContain('<strong id="my-role">owner</strong>');

    // A code works once.
    expect((await alice.post('/claim', { code: offer.code, csrf })).status).toBeGreaterThanOrEqual(
      400,
    );
  });
});

describe('access', () => {
  it('shows a lock counting down, and lets the owner break it', async () => {
    const lock = await fx.builder.acquireLock('report', { path: '/out.txt', ttlSeconds: 600 });
    const page = await html('/w/report/access');
    expect(page).toContain('held by <strong>builder</strong>');
    expect(page).toMatch(/expires <time datetime="[^"]+">in (9|10) min \d+ s<\/time>/);
    const broke = await alice.post('/w/report/locks/break', { id: lock.id, csrf });
    expect(broke.status).toBe(303);
    expect(await fx.builder.listLocks('report', {})).toEqual([]);
    expect(await html('/w/report/locks')).toContain('No file is locked.');
  });

  it('lets the owner change a role and remove a member', async () => {
    await alice.post('/w/report/members', { principal: 'builder', role: 'viewer', csrf });
    expect(await fx.engine.listMembers('report')).toContainEqual(
      expect.objectContaining({ principal: 'builder', role: 'viewer' }),
    );
    expect(await html('/w/report/access')).toContain('<td class="role">viewer</td>');
    await alice.post('/w/report/members/remove', { principal: 'builder', csrf });
    const members = await fx.engine.listMembers('report');
    expect(members.map((m) => m.principal)).toEqual(['alice']);
  });

  it('creates a key narrowed to the workspace, shows its secret once, and revokes it', async () => {
    const created = await alice.post('/w/report/keys', {
      label: 'ci',
      role: 'viewer',
      pathPrefix: '/out',
      csrf,
    });
    expect(created.status).toBe(201);
    const secret = /id="new-key" class="hash secret" value="([^"]+)"/.exec(
      await created.text(),
    )?.[1];
    const me = await fx.engine.as(await fx.engine.authenticate(secret ?? '')).whoami();
    expect(me.key).toMatchObject({
      workspaces: ['report'],
      role: 'viewer',
      pathPrefixes: ['/out'],
    });
    const page = await html('/w/report/access');
    expect(page).not.toContain(secret);
    expect(page).toContain('at most viewer; changes under /out');
    await alice.post('/w/report/keys/revoke', { id: me.key?.id ?? '', csrf });
    await expect(fx.engine.authenticate(secret ?? '')).rejects.toThrow();
  });

  it('shows a viewer the members and locks without the owner’s buttons', async () => {
    await fx.engine.setMember('report', 'bob', 'viewer');
    const bob = new TestBrowser(fx.url);
    await bob.signIn(await fx.loginUrl('bob'));
    const page = await (await bob.get('/w/report/access')).text();
    expect(page).toContain('<strong id="my-role">viewer</strong>');
    expect(page).toContain('<td>alice</td>');
    expect(page).not.toContain('Set role');
    expect(page).not.toContain('Invite someone');
    const token = await bob.csrf('/w/report/access');
    const refused = await bob.post('/w/report/members', {
      principal: 'bob',
      role: 'owner',
      csrf: token,
    });
    expect(refused.status).toBe(403);
    await fx.engine.removeMember('report', 'bob');
  });

  it('refuses a bad role as a 400 page', async () => {
    const bad = await alice.post('/w/report/members', { principal: 'bob', role: 'god', csrf });
    expect(bad.status).toBe(400);
  });
});

describe('audit', () => {
  it('lists the workspace’s entries a page at a time, and says who verifies the chain', async () => {
    for (let i = 0; i < 30; i++) await html('/w/report/locks');
    const page = await html('/w/report/audit');
    expect(page).toContain('<td>acceptTransfer</td>');
    expect(page).toContain('satchel audit verify');
    const next = /href="(\/w\/report\/audit\?cursor=[^"]+)"/.exec(page)?.[1];
    expect(next).toBeDefined();
    expect(await html((next ?? '').replaceAll('&amp;', '&'))).toContain('Oldest entries');
  });
});

describe('audit verification', () => {
  it('shows an admin the chain recomputed and intact', async () => {
    const admin = new TestBrowser(fx.url);
    await admin.signIn(await fx.loginUrl((await fx.engine.whoami()).principal));
    const page = await (await admin.get('/w/report/audit')).text();
    expect(page).toMatch(
      /Chain verification: <strong>intact<\/strong> — all \d+ entries recomputed/,
    );
  });
});

describe('share links', () => {
  const visitor = (path: string, init?: RequestInit) => fetch(`${fx.url}${path}`, init);
  const tokenOf = (page: string) =>
    /id="new-link" class="hash secret" value="[^"]*\/s\/([^"]+)"/.exec(page)?.[1] ?? '';

  it('shares a folder read-only with a visitor who has no session', async () => {
    const made = await alice.post('/w/report/share', { path: '/docs', expiresIn: '86400', csrf });
    expect(made.status).toBe(201);
    const token = tokenOf(await made.text());
    // A browser opening the link is sent to its page; a program gets the JSON listing.
    // (node:http: fetch sets Sec-Fetch-Mode itself.)
    const sent = await new Promise<IncomingMessage>((resolve, reject) =>
      httpGet(
        `${fx.url}/s/${token}`,
        { headers: { 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' } },
        resolve,
      ).on('error', reject),
    );
    sent.resume();
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe(`/share/${token}`);
    expect((await visitor(`/s/${token}`)).headers.get('Content-Type')).toMatch(/json/);
    const top = await visitor(`/share/${token}`);
    expect(top.status).toBe(200);
    const listing = await top.text();
    expect(listing).toContain(`<a href="/share/${token}/a.txt">a.txt</a>`);
    expect(listing).toContain(`<a href="/share/${token}/deep">deep/</a>`);
    const file = await (await visitor(`/share/${token}/a.txt`)).text();
    expect(file).toContain(`href="/s/${token}/a.txt?download=1"`);
    expect(await (await visitor(`/s/${token}/a.txt`)).text()).toBe('alpha\n');
    expect((await visitor(`/share/${token}/../out.txt`)).status).toBeGreaterThanOrEqual(400);
    // Every view is audited under the link's id.
    const { items } = await fx.engine.listAudit({ workspace: 'report', limit: 1000 });
    expect(items.filter((e) => e.actor.startsWith('share:')).length).toBeGreaterThanOrEqual(3);
  });

  it('asks for the password, refuses a wrong one, and shows the file with the right one', async () => {
    const made = await alice.post('/w/report/share', {
      path: '/out.txt',
      password: 'correct horse',
      maxDownloads: '1',
      csrf,
    });
    const token = tokenOf(await made.text());
    const asked = await visitor(`/share/${token}`);
    expect(asked.status).toBe(401);
    expect(await asked.text()).toContain('This link needs a password');
    const post = (password: string) =>
      visitor(`/share/${token}`, {
        method: 'POST',
        body: new URLSearchParams({ password }),
        headers: { Origin: fx.url },
      });
    expect((await post('wrong password')).status).toBe(401);
    const shown = await post('correct horse');
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('<h1>out.txt</h1>');
    const links = await fx.engine.listShareLinks('report', {});
    expect(links.items.find((l) => l.path === '/out.txt')?.hasPassword).toBe(true);
  });

  it('refuses revoked and expired links with a page that says so', async () => {
    const made = await alice.post('/w/report/share', { path: '/out.txt', expiresIn: '3600', csrf });
    const token = tokenOf(await made.text());
    const revokedToken = tokenOf(
      await (await alice.post('/w/report/share', { path: '/docs', csrf })).text(),
    );
    const { items } = await fx.engine.listShareLinks('report', {});
    const id =
      items.find(
        (l) =>
          l.path === '/docs' &&
          l.state === 'active' &&
          l.expiresAt > new Date(now + 86_400_000 * 2).toISOString(),
      )?.id ?? '';
    expect((await alice.post('/w/report/share/revoke', { id, csrf })).status).toBe(303);
    const revoked = await visitor(`/share/${revokedToken}`);
    expect(revoked.status).toBe(410);
    expect(await revoked.text()).toContain('This link was revoked');

    now += 2 * 3600_000;
    const expired = await visitor(`/share/${token}`);
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain('This link has expired');
    expect((await visitor('/share/not-a-token')).status).toBe(404);
    const list = await html('/w/report/share');
    expect(list).toContain('<span class="badge revoked">revoked</span>');
    expect(list).toContain('<span class="badge expired">expired</span>');
  });
});
