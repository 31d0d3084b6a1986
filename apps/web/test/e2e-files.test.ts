/**
 * The web app's review and file pages in a real browser (chromium at 360 px), against a real
 * server an agent writes over MCP: side-by-side diff, activity updating live, a session's
 * changes, a 20 MB upload cut off mid-way and resumed, drag and drop, create folder / rename /
 * delete and Undo, a 5 MB text preview; axe-core and a screenshot on every page.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb, type WebFixture } from '../src/test-support/server.js';
import { BROWSER_REQUIRED, CHROMIUM, launchChromium, review } from './browser.js';

let fx: WebFixture;
let browser: Browser;
let page: Page;
let agent: Client;
const cspViolations: string[] = [];

/** The agent writes a file over MCP (the SDK's Streamable HTTP client, with its key). */
async function agentWrites(path: string, content: string): Promise<void> {
  const result = await agent.callTool({
    name: 'write_file',
    arguments: { workspace: 'report', path, content },
  });
  expect(result.isError, `write ${path}`).not.toBe(true);
}

describe.skipIf(CHROMIUM === undefined && !BROWSER_REQUIRED)('files and review in chromium', () => {
  beforeAll(async () => {
    browser = await launchChromium();
    fx = await startWeb();
    agent = new Client({ name: 'builder-agent', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${fx.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${fx.builderKey}` } },
      }),
    );
    await agentWrites('/notes.txt', 'alpha\nbeta\ngamma\n');
    await agentWrites('/notes.txt', 'alpha\nBETA\ngamma\ndelta\n');
    const line = 'The quick brown fox jumps over the lazy dog, again and again.\n';
    await fx.builder.writeFile(
      'report',
      '/large.txt',
      line.repeat(Math.ceil((5 * 2 ** 20) / line.length)),
    );
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
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

  it('shows two versions side by side, and switches back to unified', async () => {
    const { items } = await fx.builder.listVersions('report', '/notes.txt');
    await page.goto(
      `${fx.url}/w/report/diff/notes.txt?from=${items[1]?.seq}&to=${items[0]?.seq}&view=split`,
    );
    expect(await page.locator('table.split td.del').allTextContents()).toEqual(['−removed: beta']);
    expect(await page.locator('table.split td.add').allTextContents()).toEqual([
      '+added: BETA',
      '+added: delta',
    ]);
    await review(page, 'f01-split-diff');
    await page.click('text=Unified');
    await expect.poll(() => page.locator('pre.diff .add').count()).toBe(2);
  });

  it('updates the activity view live when the agent writes over MCP', async () => {
    await page.goto(`${fx.url}/w/report/activity`);
    expect(await page.locator('#changes').textContent()).toContain('/notes.txt');
    expect(await page.locator('#changes').textContent()).not.toContain('/live.txt');
    await review(page, 'f02-activity');
    await agentWrites('/live.txt', 'written while you watched\n');
    await expect
      .poll(() => page.locator('#changes tr').nth(1).textContent(), { timeout: 15_000 })
      .toContain('/live.txt');
    await review(page, 'f03-activity-updated');
  });

  it('lists what one session did from its link in the activity', async () => {
    // The MCP server labels the agent's calls with its connection's session.
    const link = page.locator('#changes tr').nth(1).locator('a[href*="/session/"]');
    const session = (await link.textContent()) ?? '';
    expect(session).toMatch(/^builder-agent/);
    // At 360 px a change's rows are stacked: its session and time are on screen, not off to the right.
    const box = await link.boundingBox();
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(360);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      360,
    );
    await link.click();
    await page.waitForURL(/\/w\/report\/session\//);
    expect(await page.textContent('h1')).toBe(`What session ${session} did`);
    const paths = await page.locator('#changes td.name').allTextContents();
    expect(paths).toEqual(['/notes.txt', '/notes.txt', '/live.txt']);
    await review(page, 'f04-session');
  });

  it('keeps the activity live after a live request is cut off', async () => {
    let cut = 0;
    await page.route('**/activity/live*', (route) =>
      cut++ === 0 ? route.abort('connectionreset') : route.continue(),
    );
    await page.goto(`${fx.url}/w/report/activity`);
    await expect.poll(() => cut).toBeGreaterThan(0);
    await agentWrites('/after-cut.txt', 'written after the live request failed\n');
    await expect
      .poll(() => page.locator('#changes tr').nth(1).textContent(), { timeout: 45_000 })
      .toContain('/after-cut.txt');
    await page.unroute('**/activity/live*');
  }, 60_000);

  it('uploads 20 MB, cut off mid-way, resumed from the offset the server kept', async () => {
    const bytes = Buffer.alloc(20 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE((i * 2654435761) >>> 0, i);
    await page.goto(`${fx.url}/w/report/tree/`);
    await review(page, 'f05-folder-with-upload');
    // Keyboard users reach the file input after New folder's button, its zone outlined.
    await page.focus('#new-folder');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('upload-files');
    const outline = await page
      .locator('#upload')
      .evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).not.toBe('none');
    // The connection drops under the second part (the request never reaches the server), the
    // first question "how much do you have?" after it and the fourth part get a 503.
    let patches = 0;
    let offsets = 0;
    let cut = 0;
    await page.route('**/w/report/uploads/*', async (route) => {
      if (route.request().method() === 'GET' && offsets++ === 0) {
        cut++;
        return route.fulfill({ status: 503, body: 'unavailable' });
      }
      if (route.request().method() !== 'PATCH') return route.continue();
      patches++;
      if (patches === 2) {
        cut++;
        return route.abort('connectionreset');
      }
      // A proxy in between that is briefly unavailable: "not now", so the script retries.
      if (patches === 4) {
        cut++;
        return route.fulfill({ status: 503, body: 'unavailable' });
      }
      return route.continue();
    });
    // From a file on disk: a 20 MB buffer sent through the DevTools protocol took over 30 s on a
    // loaded machine.
    const file = join(await mkdtemp(join(tmpdir(), 'satchel-upload-')), 'big.bin');
    await writeFile(file, bytes);
    await page.setInputFiles('#upload-files', file, { timeout: 120_000 });
    await page.waitForURL(/done=Uploaded/, { timeout: 120_000 });
    await page.unroute('**/w/report/uploads/*');
    expect(cut).toBe(3);
    expect(offsets).toBeGreaterThanOrEqual(2);
    expect(patches).toBeGreaterThanOrEqual(6);
    const info = await fx.builder.stat('report', '/big.bin');
    expect(info.size).toBe(bytes.length);
    expect(info.hash).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(await page.locator('.notice.undo').textContent()).toContain('Uploaded big.bin.');
    await review(page, 'f06-uploaded');
  }, 240_000);

  it('uploads a file dropped on the drop zone', async () => {
    const data = await page.evaluateHandle(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['dropped\n'], 'dropped.txt', { type: 'text/plain' }));
      return transfer;
    });
    await page.dispatchEvent('#upload', 'drop', { dataTransfer: data });
    await page.waitForURL(/done=Uploaded\+dropped\.txt/);
    expect((await fx.builder.readText('report', '/dropped.txt')).text).toBe('dropped\n');
  });

  it('creates a folder, moves a file into it, deletes it and undoes the delete', async () => {
    await page.fill('#new-folder', 'drafts');
    await page.click('button:has-text("Create")');
    await page.waitForURL(/done=Created/);
    expect((await fx.builder.stat('report', '/drafts')).type).toBe('directory');

    await page.goto(`${fx.url}/w/report/file/dropped.txt`);
    await page.click('text=Rename or move…');
    await review(page, 'f07-rename');
    await page.fill('#to', '/drafts/renamed.txt');
    await page.click('button:has-text("Rename or move")');
    await page.waitForURL(/\/w\/report\/tree\/drafts\?done=Moved/);
    await review(page, 'f08-moved');

    await page.goto(`${fx.url}/w/report/file/drafts/renamed.txt`);
    await page.click('text=Delete…');
    await review(page, 'f09-delete-confirm');
    await page.click('button:has-text("Delete renamed.txt")');
    await page.waitForURL(/done=Deleted/);
    await expect(fx.builder.stat('report', '/drafts/renamed.txt')).rejects.toThrow();
    await review(page, 'f10-deleted');
    await page.click('button:has-text("Undo")');
    await page.waitForURL(/note=Undone/);
    expect((await fx.builder.readText('report', '/drafts/renamed.txt')).text).toBe('dropped\n');
    expect(await page.locator('td.name').allTextContents()).toEqual(['renamed.txt']);
    await review(page, 'f11-undone');
  });

  it('previews the first lines of a 5 MB text file, with more a click away', async () => {
    await page.goto(`${fx.url}/w/report/file/large.txt`);
    expect(await page.locator('pre.code .line').count()).toBe(1000);
    await review(page, 'f12-large-preview');
    await page.click('text=Show more');
    // A plain link: wait for the new page's load, not a second's polling, which a busy
    // machine outran while the browser still parsed 4,000 lines.
    await page.waitForURL(/\?lines=4000$/);
    expect(await page.locator('pre.code .line').count()).toBe(4000);
    expect(cspViolations).toEqual([]);
  });
});
