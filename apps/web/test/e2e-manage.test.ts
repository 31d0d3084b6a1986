/**
 * The review and hand-over loop in a real browser (chromium at 360 px wide) against a real
 * server: alice comments on lines 3–5, the agent lists and resolves the thread over MCP, the
 * page shows it resolved; the agent offers the workspace and alice claims it; share links open
 * in a fresh context with no session, and expired and revoked ones are refused. axe-core and a
 * screenshot on every page (test/browser.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb, type WebFixture } from '../src/test-support/server.js';
import { BROWSER_REQUIRED, CHROMIUM, launchChromium, review } from './browser.js';

const VIEWPORT = { width: 360, height: 740 };
let fx: WebFixture;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let agent: Client;
let now = Date.now();
const cspViolations: string[] = [];

/** An MCP tool call by the agent; its structured result. */
async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await agent.callTool({ name, arguments: args });
  expect(result.isError, name).not.toBe(true);
  return (result.structuredContent ?? {}) as Record<string, unknown>;
}

/** A fresh browser with no cookie at all: a visitor without an account. */
async function visitor(): Promise<Page> {
  const fresh = await browser.newContext({ viewport: VIEWPORT });
  return fresh.newPage();
}

async function createLink(path: string, expiry = '7 days', password = ''): Promise<string> {
  await page.goto(`${fx.url}/w/report/share`);
  await page.fill('#share-path', path);
  await page.fill('#share-password', password);
  await page.selectOption('#share-expiry', { label: expiry });
  await Promise.all([page.waitForURL(/\/w\/report\/share$/), page.click('text=Create link')]);
  return page.inputValue('#new-link');
}

describe.skipIf(CHROMIUM === undefined && !BROWSER_REQUIRED)('managing in chromium', () => {
  beforeAll(async () => {
    browser = await launchChromium();
    fx = await startWeb({}, { clock: () => now });
    agent = new Client({ name: 'builder-agent', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${fx.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${fx.builderKey}` } },
      }),
    );
    const plan = 'Plan\n\nStep one\nStep two\nStep three\n\nDone\n';
    await call('write_file', { workspace: 'report', path: '/plan.txt', content: plan });
    await call('write_file', { workspace: 'report', path: '/docs/a.txt', content: 'alpha\n' });
    context = await browser.newContext({ viewport: VIEWPORT });
    page = await context.newPage();
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text());
    });
    await page.goto(await fx.loginUrl());
    await Promise.all([page.waitForURL(`${fx.url}/`), page.click('button:has-text("Sign in")')]);
  }, 120_000);

  afterAll(async () => {
    await agent?.close();
    await browser?.close();
    await fx?.close();
  });

  it('comments on lines 3–5; the agent lists and resolves it over MCP; the page shows it resolved', async () => {
    await page.goto(`${fx.url}/w/report/file/plan.txt`);
    // Select lines 3–5 of the preview with the mouse: the form takes their numbers.
    const from = await page.locator('#L3').boundingBox();
    const to = await page.locator('#L5').boundingBox();
    if (from === null || to === null) throw new Error('no lines 3–5 on the page');
    await page.mouse.move(from.x + from.width - 4, from.y + 4);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width - 4, to.y + to.height / 2, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => page.inputValue('#comment-start')).toBe('3');
    expect(await page.inputValue('#comment-end')).toBe('5');
    await page.fill('#comment-body', 'Step two needs a date.');
    await Promise.all([page.waitForURL(/#thread-/), page.click('text=Add comment')]);
    await expect.poll(() => page.textContent('#comments')).toContain('On lines 3–5 of version');
    await review(page, '20-comments-open');

    const listed = await call('list_comments', { workspace: 'report', path: '/plan.txt' });
    const threads = listed.threads as Array<{ id: string; body: string; anchor: object }>;
    expect(threads).toHaveLength(1);
    expect(threads[0]).toMatchObject({
      body: 'Step two needs a date.',
      anchor: { startLine: 3, endLine: 5 },
    });
    await call('resolve_comment', { workspace: 'report', id: threads[0]?.id });

    await page.reload();
    await expect.poll(() => page.textContent('#comments')).toContain('Resolved by builder');
    expect(await page.locator('.badge.resolved').count()).toBe(1);
    await review(page, '21-comments-resolved');
  });

  it('accepts a transfer the agent offered, by its link, and alice becomes owner', async () => {
    await page.goto(`${fx.url}/w/report/access`);
    expect(await page.textContent('#my-role')).toBe('editor');
    const offer = await call('offer_transfer', { workspace: 'report' });
    await page.goto(`${fx.url}/claim?code=${encodeURIComponent(String(offer.code))}`);
    await review(page, '22-claim');
    await Promise.all([
      page.waitForURL(/\/w\/report\/access\?claimed=1$/),
      page.click('text=Accept and become owner'),
    ]);
    expect(await page.textContent('#my-role')).toBe('owner');
    await review(page, '23-access');
    await page.goto(`${fx.url}/w/report/audit`);
    await expect.poll(() => page.textContent('table')).toContain('acceptTransfer');
    await review(page, '24-audit');
  });

  it('opens a share link in a fresh context with no session, read-only', async () => {
    const url = await createLink('/docs');
    expect(url).toMatch(/\/s\/[^/]+$/);
    await review(page, '25-share-links');
    const guest = await visitor();
    const response = await guest.goto(url);
    expect(response?.status()).toBe(200);
    expect(guest.url()).toMatch(/\/share\/[^/]+$/);
    expect(await guest.textContent('header')).not.toContain('Signed in');
    await review(guest, '26-shared-folder');
    await Promise.all([guest.waitForURL(/\/a\.txt$/), guest.click('text=a.txt')]);
    await review(guest, '27-shared-file');
    const opened = await guest.request.get(
      `${new URL(url).origin}${await guest.getAttribute('text=Open', 'href')}`,
    );
    expect(await opened.text()).toBe('alpha\n');
    await guest.context().close();
  });

  it('refuses revoked and expired links with a page that says so', async () => {
    const revoked = await createLink('/plan.txt');
    await page.click('button[aria-label="Revoke the link to /plan.txt"]');
    await page.waitForSelector('.badge.revoked');
    const expiring = await createLink('/plan.txt', '1 hour');
    now += 2 * 3600_000;
    const guest = await visitor();
    const gone = await guest.goto(revoked);
    expect(gone?.status()).toBe(410);
    expect(await guest.textContent('h1')).toBe('This link was revoked');
    await review(guest, '28-link-revoked');
    const expired = await guest.goto(expiring);
    expect(expired?.status()).toBe(410);
    expect(await guest.textContent('h1')).toBe('This link has expired');
    await review(guest, '29-link-expired');
    await guest.context().close();
    expect(cspViolations).toEqual([]);
  });

  it('asks a visitor for the password of a protected link, then shows the file', async () => {
    const url = await createLink('/plan.txt', '1 day', 'correct horse battery');
    const guest = await visitor();
    expect((await guest.goto(url))?.status()).toBe(401);
    await review(guest, '30-share-password');
    await guest.fill('#share-password', 'correct horse battery');
    await Promise.all([guest.waitForLoadState(), guest.click('button:has-text("Open")')]);
    await expect.poll(() => guest.textContent('h1')).toBe('plan.txt');
    await review(guest, '31-shared-file-password');
    await guest.context().close();
  });
});
