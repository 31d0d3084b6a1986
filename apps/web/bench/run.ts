/**
 * `pnpm bench` for the web app: time to first byte and to the last byte of the pages the issue
 * names — a folder of 10,000 files and the preview of a 5 MB text file — over a real server,
 * and the weight of the JS and CSS a page loads. Median of 20 requests after 3 warm-ups.
 */
import { gzipSync } from 'node:zlib';
import { startWeb, TestBrowser } from '../src/test-support/server.js';

async function timed(browser: TestBrowser, path: string) {
  const start = performance.now();
  const response = await browser.get(path);
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

const fx = await startWeb();
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
  const browser = new TestBrowser(fx.url);
  await browser.signIn(await fx.loginUrl());
  for (const [name, path] of [
    ['folder of 10,000 files', '/w/report/tree/big'],
    ['5 MB text file preview', '/w/report/file/large.txt'],
  ] as const) {
    for (let i = 0; i < 3; i++) await timed(browser, path);
    const runs = [];
    for (let i = 0; i < 20; i++) runs.push(await timed(browser, path));
    console.log(
      `${name}: TTFB ${median(runs.map((r) => r.ttfb)).toFixed(1)} ms, ` +
        `complete ${median(runs.map((r) => r.total)).toFixed(1)} ms, ` +
        `${(median(runs.map((r) => r.bytes)) / 1024).toFixed(0)} KB of HTML`,
    );
  }
  let weight = 0;
  for (const asset of ['/assets/htmx.min.js', '/assets/app.css']) {
    weight += gzipSync(Buffer.from(await (await browser.get(asset)).arrayBuffer())).length;
  }
  console.log(`page weight: ${(weight / 1024).toFixed(1)} KB of JS+CSS gzipped`);
} finally {
  await fx.close();
}
