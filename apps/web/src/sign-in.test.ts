/** Sign-in, sessions and the CSRF and Origin defences, over a real server on 127.0.0.1. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb, TestBrowser, type WebFixture } from './test-support/server.js';
import { webApp } from './web-app.js';

let fx: WebFixture;
beforeAll(async () => {
  fx = await startWeb();
});
afterAll(async () => {
  await fx.close();
});

describe('sign-in by link', () => {
  it('opening the link only shows a button; posting it signs in once with an HttpOnly cookie', async () => {
    const browser = new TestBrowser(fx.url);
    const link = await fx.loginUrl();
    // A link scanner fetching the URL does not use it up.
    const page = await browser.get(link.slice(fx.url.length));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<button type="submit" class="primary">Sign in</button>');
    const signedIn = await browser.signIn(link);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('Location')).toBe('/');
    const cookie = signedIn.headers.get('Set-Cookie') ?? '';
    expect(cookie).toMatch(
      /^satchel_session=[0-9a-f]{32}\.[\w-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    const home = await browser.get('/');
    expect(await home.text()).toContain('Signed in as <strong>alice</strong>');

    // One-time: the same link again is a 401 page, and sets no cookie.
    const again = await new TestBrowser(fx.url).signIn(link);
    expect(again.status).toBe(401);
    expect(again.headers.get('Set-Cookie')).toBeNull();
    expect(await again.text()).toContain('this sign-in link is not valid');
  });

  it('marks the cookie Secure and __Host- over HTTPS behind a trusted proxy only', async () => {
    const trusting = webApp(fx.engine, { trustProxy: true });
    const ignoring = webApp(fx.engine);
    const post = async (app: typeof trusting) => {
      const { token } = await fx.engine.createLoginLink({ principal: 'alice' });
      return app.request('http://satchel.example/login', {
        method: 'POST',
        body: new URLSearchParams({ token }),
        headers: {
          'X-Forwarded-Proto': 'https',
          Origin: 'https://satchel.example',
          'Content-Type': 'application/x-www-form-urlencoded',
        },
      });
    };
    const secure = (await post(trusting)).headers.get('Set-Cookie') ?? '';
    expect(secure).toMatch(/^__Host-satchel_session=.*; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    // Not trusted: the forwarded scheme is ignored, so the https Origin is another site's.
    expect((await post(ignoring)).status).toBe(403);
  });

  it('signs out with the form’s CSRF token; without it, or from another origin, nothing happens', async () => {
    const browser = new TestBrowser(fx.url);
    await browser.signIn(await fx.loginUrl());
    const csrf = await browser.csrf();
    const noToken = await browser.post('/logout', {});
    expect(noToken.status).toBe(403);
    expect(await noToken.text()).toContain('this form has expired or did not come from this site');
    const crossSite = await browser.post('/logout', { csrf }, { Origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect((await browser.get('/')).status).toBe(200);

    const out = await browser.post('/logout', { csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get('Location')).toBe('/login');
    expect(browser.cookie).toBeNull();
  });

  it('lists one’s sessions and revokes another browser’s, which is then signed out', async () => {
    const laptop = new TestBrowser(fx.url);
    const phone = new TestBrowser(fx.url);
    await laptop.signIn(await fx.loginUrl());
    await phone.signIn(await fx.loginUrl());
    const phoneCookie = phone.cookie ?? '';
    const phoneId = phoneCookie.split('=')[1]?.split('.')[0] ?? '';
    const list = await (await laptop.get('/sessions')).text();
    expect(list).toContain(`/sessions/${phoneId}/revoke`);
    expect(list).toContain('(this one)');

    const revoked = await laptop.post(`/sessions/${phoneId}/revoke`, { csrf: await laptop.csrf() });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('Location')).toBe('/sessions');
    // The phone's cookie no longer signs in: the start page sends it to sign in, and a page
    // that needs a session says so, deleting the dead cookie.
    const home = await phone.get('/');
    expect(home.status).toBe(303);
    expect(home.headers.get('Location')).toBe('/login');
    const tree = await phone.get('/w/report/tree/');
    expect(tree.status).toBe(401);
    expect(tree.headers.get('Set-Cookie')).toMatch(/^satchel_session=; Max-Age=0/);
  });

  it('keeps the API’s own answers: problem+json under /v1, keys still work', async () => {
    const missing = await fetch(`${fx.url}/v1/nothing-here`, {
      headers: { Authorization: `Bearer ${fx.builderKey}` },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('Content-Type')).toBe('application/problem+json');
    const whoami = await fetch(`${fx.url}/v1/whoami`, {
      headers: { Authorization: `Bearer ${fx.builderKey}` },
    });
    expect(((await whoami.json()) as { principal: string }).principal).toBe('builder');
    // A session cookie is not an API credential.
    const browser = new TestBrowser(fx.url);
    await browser.signIn(await fx.loginUrl());
    expect((await browser.get('/v1/whoami')).status).toBe(401);
  });

  it('answers pages it does not have with a 404 page under the strict CSP', async () => {
    const response = await fetch(`${fx.url}/no/such/page`);
    expect(response.status).toBe(404);
    expect(response.headers.get('Content-Security-Policy')).toContain("script-src 'self'");
    expect(response.headers.get('Content-Security-Policy')).not.toContain('unsafe-inline');
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
  });
});
