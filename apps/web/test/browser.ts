/**
 * The real browser of the end-to-end tests: Debian's `chromium` driven by playwright-core (its
 * own browser download cannot work here). Where chromium is missing the suite is skipped —
 * unless SATCHEL_TEST_REQUIRE_BROWSER=1 or CI is set, where it fails instead.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import axe from 'axe-core';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The chromium binary: SATCHEL_CHROMIUM, else the first that exists of the usual places. */
export const CHROMIUM: string | undefined =
  process.env.SATCHEL_CHROMIUM ?? CANDIDATES.find((path) => existsSync(path));

/** Whether a missing browser must fail the run instead of skipping the suite. */
export const BROWSER_REQUIRED =
  process.env.SATCHEL_TEST_REQUIRE_BROWSER === '1' ||
  (process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== '0');

export async function launchChromium(): Promise<Browser> {
  if (CHROMIUM === undefined) {
    throw new Error(
      'chromium is not installed (tried SATCHEL_CHROMIUM and /usr/bin/chromium): ' +
        'apt-get install -y chromium, or set SATCHEL_CHROMIUM',
    );
  }
  // --no-sandbox: CI runs as root, where chromium's own sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** Where screenshots go: apps/web/test-results/screenshots (gitignored), for a reviewer. */
export const SCREENSHOTS = join(import.meta.dirname, '..', 'test-results', 'screenshots');

/**
 * Checks the page as a reviewer would: axe-core finds no serious or critical violation, nothing
 * overflows a 360 px wide screen sideways, and a screenshot of it is saved as `<name>.png`.
 */
export async function review(page: Page, name: string): Promise<void> {
  // Evaluated over the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const w = window as unknown as { axe: typeof axe };
    const result = await w.axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  expect(violations, `axe on ${name}`).toEqual([]);
  // What sticks out past the right edge of the screen (a table scrolls inside its own box).
  const overflowing = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    return [...document.querySelectorAll('body *')]
      .filter(
        (el) =>
          el.getBoundingClientRect().right > width + 1 &&
          (el.parentElement?.getBoundingClientRect().right ?? 0) <= width + 1,
      )
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
  });
  expect(overflowing, `horizontal overflow on ${name}`).toEqual([]);
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
