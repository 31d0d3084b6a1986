/**
 * The web app in a real browser (chromium at 360 px wide), against a real server whose
 * workspace an agent wrote over MCP: sign in by link, browse, preview, untrusted HTML, diff and
 * restore, undo of a session; axe-core and a screenshot on every page. One server and one browser for the file.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb, type WebFixture } from '../src/test-support/server.js';
import { BROWSER_REQUIRED, CHROMIUM, launchChromium, review } from './browser.js';

const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABpfZFQAAAAABJRU5ErkJggg==';

let fx: WebFixture;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const cspViolations: string[] = [];
const dialogs: string[] = [];

/** The agent: a real MCP SDK client over Streamable HTTP with its API key. */
async function agentWrites(url: string, key: string): Promise<void> {
  const client = new Client({ name: 'builder-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  const write = async (path: string, content: string, encoding?: 'base64') => {
    const result = await client.callTool({
      name: 'write_file',
      arguments: { workspace: 'report', path, content, ...(encoding ? { encoding } : {}) },
    });
    expect(result.isError, `write ${path}`).not.toBe(true);
  };
  await write('/README.md', '# Quarterly report\n\nRevenue is **up**.\n\n- one\n- two\n');
  await write('/charts/pixel.png', PNG_1X1, 'base64');
  await write(
    '/charts/page.html',
    '<html><body><script>document.title="pwned";alert("xss")</script><h1>hi</h1></body></html>',
  );
  await write('/notes.txt', 'alpha\nbeta\ngamma\n');
  await write('/notes.txt', 'alpha\nBETA\ngamma\ndelta\n');
  for (let i = 0; i < 230; i++)
    await write(`/data/row-${String(i).padStart(3, '0')}.csv`, `${i}\n`);
  await client.close();
}

describe.skipIf(CHROMIUM === undefined && !BROWSER_REQUIRED)('the web app in chromium', () => {
  beforeAll(async () => {
    browser = await launchChromium();
    fx = await startWeb();
    await agentWrites(fx.url, fx.builderKey);
    context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    page = await context.newPage();
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text());
    });
    page.on('dialog', async (d) => {
      dialogs.push(d.message());
      await d.dismiss();
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  it('signs in by link with the keyboard alone, focus visible all the way', async () => {
    await page.goto(await fx.loginUrl());
    await review(page, '01-sign-in');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    // Tab to the Sign in button; every stop shows an outline.
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Tab');
      const focus = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        return { text: el.textContent, outline: getComputedStyle(el).outlineStyle };
      });
      expect(focus.outline).not.toBe('none');
      if (focus.text === 'Sign in') break;
    }
    await Promise.all([page.waitForURL(`${fx.url}/`), page.keyboard.press('Enter')]);
    await expect.poll(() => page.textContent('header')).toContain('Signed in as alice');
    await review(page, '02-workspaces');
  });

  it('browses the workspace the agent wrote, a page of rows at a time', async () => {
    await page.click('text=report');
    await page.waitForURL(/\/w\/report\/tree\/$/);
    await review(page, '03-workspace');
    await page.click('text=data/');
    await expect.poll(() => page.locator('table.files tbody tr td.name').count()).toBe(200);
    // htmx fetches the next rows in place; the page does not navigate.
    const url = page.url();
    await page.click('text=Show more');
    await expect.poll(() => page.locator('table.files tbody tr td.name').count()).toBe(230);
    expect(page.url()).toBe(url);
    await review(page, '04-folder');
  });

  it('previews Markdown rendered and an image shown', async () => {
    await page.goto(`${fx.url}/w/report/file/README.md`);
    expect(await page.locator('article.markdown strong').textContent()).toBe('up');
    expect(await page.locator('article.markdown li').count()).toBe(2);
    await review(page, '05-markdown');
    await page.goto(`${fx.url}/w/report/file/charts/pixel.png`);
    const width = await page
      .locator('img.image')
      .evaluate((img) => (img as HTMLImageElement).naturalWidth);
    expect(width).toBe(1);
    await review(page, '06-image');
  });

  it('never runs an agent’s HTML: its source is shown, and the file downloads', async () => {
    await page.goto(`${fx.url}/w/report/file/charts/page.html`);
    expect(await page.title()).toBe('page.html · report · Satchel');
    expect(await page.locator('pre.code').textContent()).toContain('<script>document.title');
    await review(page, '07-untrusted-html');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('text=Download'),
    ]);
    expect(download.suggestedFilename()).toBe('page.html');
    // Opened directly, the raw URL downloads too: the browser never renders it.
    const direct = await context.newPage();
    const [again] = await Promise.all([
      direct.waitForEvent('download'),
      direct.goto(`${fx.url}/w/report/raw/charts/page.html`).catch(() => null),
    ]);
    expect(again.suggestedFilename()).toBe('page.html');
    await direct.close();
    expect(dialogs).toEqual([]);
  });

  it('diffs two versions and restores the older one after confirming', async () => {
    await page.goto(`${fx.url}/w/report/history/notes.txt`);
    await review(page, '08-history');
    const radios = page.locator('input[name="from"]');
    await radios.nth(1).check();
    await page.locator('input[name="to"]').nth(0).check();
    await page.click('text=Compare the two versions');
    await expect
      .poll(() => page.locator('pre.diff .add').allTextContents())
      .toEqual(['+BETA\n', '+delta\n']);
    expect(await page.locator('pre.diff .del').allTextContents()).toContain('-beta\n');
    await review(page, '09-diff');

    await page.goto(`${fx.url}/w/report/history/notes.txt`);
    await page.click('a[aria-label^="Restore version"]');
    await expect
      .poll(() => page.textContent('h1'))
      .toMatch(/^Restore version \d+ of notes\.txt\?$/);
    await review(page, '10-restore-confirm');
    await page.click('button:has-text("Restore version")');
    await page.waitForURL(`${fx.url}/w/report/file/notes.txt`);
    expect(await page.locator('pre.code').textContent()).toBe('alpha\nbeta\ngamma\n');
    expect(await page.locator('dl.meta-list').textContent()).toContain('Sessionweb');
    await review(page, '11-restored');
  });

  it('previews undoing a session from its page (linked from the history), and undoes it', async () => {
    await page.goto(`${fx.url}/w/report/history/notes.txt`);
    await page.click('a[href="/w/report/session/web"]');
    await expect.poll(() => page.textContent('h1')).toBe('What session web did');
    await page.click('a[href="/w/report/undo?session=web"]');
    await expect.poll(() => page.textContent('h1')).toBe('Undo session web?');
    await page.click('summary:has-text("/notes.txt")');
    expect(await page.locator('pre.diff .add').allTextContents()).toEqual(['+BETA\n', '+delta\n']);
    await review(page, '12-undo-preview');
    await page.click('button:has-text("Undo 1 change")');
    await expect.poll(() => page.textContent('h1')).toBe('Session web undone');
    await review(page, '13-undone');
    await page.goto(`${fx.url}/w/report/file/notes.txt`);
    expect(await page.locator('pre.code').textContent()).toBe('alpha\nBETA\ngamma\ndelta\n');
  });

  it('lists the session and signs out', async () => {
    await page.goto(`${fx.url}/sessions`);
    expect(await page.locator('td strong').textContent()).toBe(' (this one)');
    await review(page, '14-sessions');
    await page.click('text=Sign out');
    await page.waitForURL(`${fx.url}/login`);
    await review(page, '15-signed-out');
    expect(cspViolations).toEqual([]);
  });
});
