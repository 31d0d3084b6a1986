/**
 * `pnpm bench` for the web app, over a real server: for a folder of 10,000 files and the
 * preview of a 5 MB text file, time to first byte and to the last byte over HTTP (median of 20
 * requests after 3 warm-ups), and in Debian's chromium the time to interactive (navigation
 * start to DOMContentLoaded, after the deferred scripts ran; median of 10 loads); and the weight
 * of the JS and CSS a page loads, gzipped. BENCH_ROUNDS (default 3) repeats the measured part;
 * each figure is the median over the rounds' medians. Prints the load average.
 */
import { loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { startWeb, TestBrowser } from '../src/test-support/server.js';
import { CHROMIUM, launchChromium } from '../test/browser.js';

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name}: positive integer`);
  return value;
}

const ROUNDS = envInt('BENCH_ROUNDS', 3);

async function timed(client: TestBrowser, path: string) {
  const start = performance.now();
  const response = await client.get(path);
  const reader = response.body?.getReader();
  let first = 0;
  let bytes = 0;
  for (;;) {
    const chunk = await reader?.read();
    if (chunk === undefined || chunk.done) break;
    if (first === 0) first = performance.now() - start;
    bytes += chunk.value.length;
  }
  if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
  return { ttfb: first, total: performance.now() - start, bytes };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Milliseconds from navigation start to DOMContentLoaded in chromium, median of 10 loads. */
async function interactive(browser: Browser, cookie: string, base: string, path: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const [name, value] = cookie.split('=');
  await context.addCookies([{ name: name ?? '', value: value ?? '', url: base }]);
  const page = await context.newPage();
  const runs: number[] = [];
  for (let i = 0; i < 12; i++) {
    await page.goto(`${base}${path}`, { waitUntil: 'domcontentloaded' });
    const ms = await page.evaluate(() => {
      const [nav] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
      return nav?.domContentLoadedEventEnd ?? 0;
    });
    if (i >= 2) runs.push(ms);
  }
  await context.close();
  return median(runs);
}

const fx = await startWeb();
const browser = CHROMIUM === undefined ? null : await launchChromium();
try {
  for (let i = 0; i < 10_000; i += 1000) {
    const files = Array.from({ length: 1000 }, (_, j) => ({
      path: `/big/file-${String(i + j).padStart(5, '0')}.txt`,
      content: `${i + j}\n`,
    }));
    await fx.builder.writeFiles('report', files);
  }
  const line = 'The quick brown fox jumps over the lazy dog, again and again and again.\n';
  await fx.builder.writeFile(
    'report',
    '/large.txt',
    line.repeat(Math.ceil((5 * 2 ** 20) / line.length)),
  );
  const client = new TestBrowser(fx.url);
  await client.signIn(await fx.loginUrl());
  console.log(`rounds: ${ROUNDS}; load average at start: ${loadavg().map((l) => l.toFixed(2))}`);
  for (const [name, path] of [
    ['folder of 10,000 files', '/w/report/tree/big'],
    ['5 MB text file preview', '/w/report/file/large.txt'],
  ] as const) {
    const ttfb: number[] = [];
    const total: number[] = [];
    const tti: number[] = [];
    let bytes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < 3; i++) await timed(client, path);
      const runs = [];
      for (let i = 0; i < 20; i++) runs.push(await timed(client, path));
      ttfb.push(median(runs.map((r) => r.ttfb)));
      total.push(median(runs.map((r) => r.total)));
      bytes = median(runs.map((r) => r.bytes));
      if (browser !== null) tti.push(await interactive(browser, client.cookie ?? '', fx.url, path));
    }
    const f = (values: number[]) =>
      `${median(values).toFixed(1)} ms (rounds ${values.map((v) => v.toFixed(0)).join(', ')})`;
    console.log(
      `${name}: TTFB ${f(ttfb)}, complete ${f(total)}, ` +
        `interactive ${browser === null ? 'n/a (no chromium)' : f(tti)}, ` +
        `${(bytes / 1024).toFixed(0)} KB of HTML`,
    );
  }
  let weight = 0;
  let raw = 0;
  for (const asset of ['htmx.min.js', 'app.css', 'files.css', 'upload.js']) {
    const body = Buffer.from(await (await client.get(`/assets/${asset}`)).arrayBuffer());
    raw += body.length;
    weight += gzipSync(body).length;
  }
  console.log(
    `page weight: ${(weight / 1024).toFixed(1)} KB of JS+CSS gzipped ` +
      `(${(raw / 1024).toFixed(0)} KB as served), the folder page's four files`,
  );
  console.log(`load average at end: ${loadavg().map((l) => l.toFixed(2))}`);
} finally {
  await browser?.close();
  await fx.close();
}
