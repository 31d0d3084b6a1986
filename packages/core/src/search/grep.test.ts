/** grep: literal and RE2 search over current files, bounded, never hanging on a regex. */
import { describe, expect, it } from 'vitest';
import { openTemp } from '../test-support/temp.js';

/**
 * Runs `op` while a 10 ms interval ticks; `lag` is the longest the event loop made that tick
 * wait beyond its due time: what every other request on the server would wait.
 */
async function loopLagDuring<T>(
  op: () => Promise<T>,
): Promise<{ value: T; lag: number; ms: number }> {
  const started = performance.now();
  let last = started;
  let lag = 0;
  const tick = (): void => {
    const now = performance.now();
    lag = Math.max(lag, now - last - 10);
    last = now;
  };
  const timer = setInterval(tick, 10);
  try {
    const value = await op();
    tick();
    return { value, lag, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

describe('grep', () => {
  it('finds literal lines with path, seq and line number, case-insensitively on request', async () => {
    const { satchel } = await openTemp();
    const a = await satchel.writeFile('ws', '/src/a.ts', 'const Config = 1;\nconfig();\r\nnone\n');
    await satchel.writeFile('ws', '/docs/b.md', 'see the config file\n');
    const exact = await satchel.grep('ws', 'config');
    expect(exact.hits).toEqual([
      { path: '/docs/b.md', seq: 2, line: 1, text: 'see the config file' },
      { path: '/src/a.ts', seq: a.seq, line: 2, text: 'config();' },
    ]);
    expect(exact).toMatchObject({ truncated: false, reason: null, filesScanned: 2 });
    const any = await satchel.grep('ws', 'CONFIG', { caseSensitive: false });
    expect(any.hits.map((h) => `${h.path}:${h.line}`)).toEqual([
      '/docs/b.md:1',
      '/src/a.ts:1',
      '/src/a.ts:2',
    ]);
    // A literal is literal: regex metacharacters match themselves.
    expect((await satchel.grep('ws', 'config()')).hits).toHaveLength(1);
  });

  it('takes RE2 regexes, a path and a glob, and skips binary files', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/src/a.ts', 'let x1 = 10;\nlet y = 2;\n');
    await satchel.writeFile('ws', '/src/b.js', 'let x2 = 20;\n');
    await satchel.writeFile('ws', '/other/c.ts', 'let x3 = 30;\n');
    await satchel.writeFile('ws', '/src/d.bin', new Uint8Array([0, 120, 49, 32, 61]));
    const r = await satchel.grep('ws', '^let x\\d+ = \\d+;$', {
      regex: true,
      path: '/src',
      glob: '**/*.ts',
    });
    expect(r.hits.map((h) => h.path)).toEqual(['/src/a.ts']);
    const all = await satchel.grep('ws', 'x\\d', { regex: true, path: '/src' });
    expect(all.hits.map((h) => h.path)).toEqual(['/src/a.ts', '/src/b.js']);
    expect(all.skippedBinary).toBe(1);
    const file = await satchel.grep('ws', 'let', { path: '/other/c.ts' });
    expect(file.hits).toHaveLength(1);
    await expect(satchel.grep('ws', 'x', { path: '/missing' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('refuses what RE2 cannot do, naming the problem', async () => {
    const { satchel } = await openTemp();
    await expect(satchel.grep('ws', '(a)\\1', { regex: true })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('\\1'),
    });
    await expect(satchel.grep('ws', 'a(?=b)', { regex: true })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('(?='),
    });
    await expect(satchel.grep('ws', '')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(satchel.grep('ws', 'x', { limit: 5000 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('answers pathological regexes within its budget', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', `${'a'.repeat(200_000)}!\n`);
    await satchel.writeFile('ws', '/x.txt', `${'x'.repeat(200_000)}\n`);
    for (const pattern of ['(a+)+$', '(x+x+)+y', '(.*a){20}z']) {
      const result = await satchel.grep('ws', pattern, { regex: true, timeoutMs: 5000 });
      // Linear-time matching: the scan completes instead of running out of time.
      expect(result).toMatchObject({ hits: [], reason: null, filesScanned: 2 });
    }
  });

  it('stops at the hit limit and the file and byte budgets, saying why', async () => {
    const { satchel } = await openTemp();
    for (let i = 0; i < 5; i++) {
      await satchel.writeFile('ws', `/f${i}.txt`, 'hit\nhit\n');
    }
    expect(await satchel.grep('ws', 'hit', { limit: 3 })).toMatchObject({
      truncated: true,
      reason: 'limit',
    });
    expect((await satchel.grep('ws', 'hit', { limit: 10 })).truncated).toBe(false);
    expect(await satchel.grep('ws', 'hit', { maxFiles: 2 })).toMatchObject({
      reason: 'files',
      filesScanned: 2,
    });
    expect(await satchel.grep('ws', 'hit', { maxBytes: 20 })).toMatchObject({
      reason: 'bytes',
      filesScanned: 2,
    });
    const long = await satchel.grep('ws', 'needle', { limit: 1 });
    expect(long.hits).toEqual([]);
    await satchel.writeFile('ws', '/long.txt', `${'z'.repeat(5000)}needle${'z'.repeat(5000)}`);
    const [hit] = (await satchel.grep('ws', 'needle')).hits;
    expect(hit?.text.length).toBeLessThanOrEqual(302);
    expect(hit?.text).toContain('needle');
  });

  it('keeps the time budget inside one long line, and the server free meanwhile', async () => {
    const { satchel } = await openTemp();
    // Lines long enough to be matched off the main thread: the same hits as small files give.
    const lines = Array.from(
      { length: 20_000 },
      (_, i) => `row ${i}: ${i % 5000 === 7 ? 'x42' : 'y'}`,
    );
    await satchel.writeFile('ws', '/rows.txt', `${lines.join('\n')}\n`);
    const rows = await satchel.grep('ws', 'x\\d+', { regex: true });
    expect(rows.hits.map((h) => h.line)).toEqual([8, 5008, 10008, 15008]);
    expect(rows.hits[0]?.text).toBe('row 7: x42');
    // The most expensive pattern accepted, over one 200 KB line: RE2 is linear, but this costs
    // tens of seconds, all of them inside one line.
    await satchel.writeFile('ws', '/one-line.txt', 'a'.repeat(200_000));
    const worst = await loopLagDuring(() =>
      satchel.grep('ws', '(.*a){399}', { regex: true, path: '/one-line.txt', timeoutMs: 100 }),
    );
    expect(worst.value).toMatchObject({ hits: [], truncated: true, reason: 'time' });
    expect(worst.ms).toBeLessThan(2000);
    expect(worst.lag).toBeLessThan(200);
    // The next grep is not stuck behind the abandoned one.
    const again = await satchel.grep('ws', 'x\\d+', { regex: true, timeoutMs: 5000 });
    expect(again.hits).toHaveLength(4);
  });

  it('refuses patterns too expensive to match, naming the problem', async () => {
    const { satchel } = await openTemp();
    for (const pattern of ['(.*a){1000}', '(\\pL|\\d){1000}', '((.*a){20}){40}']) {
      await expect(satchel.grep('ws', pattern, { regex: true })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/too expensive.*instructions/),
        data: { field: 'pattern' },
      });
    }
  });

  it('compiles patterns away from the event loop', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', 'Ab1\n');
    // Accepted, but case-folding 330 Unicode classes takes RE2 ~100 ms per compilation.
    const slow = `(?i)${'\\pL'.repeat(330)}`;
    const { value, lag } = await loopLagDuring(() =>
      Promise.all(
        [1, 2, 3, 4, 5].map(() => satchel.grep('ws', slow, { regex: true, timeoutMs: 20_000 })),
      ),
    );
    for (const result of value) expect(result).toMatchObject({ hits: [], reason: null });
    expect(lag).toBeLessThan(200);
  });

  it('stops at the byte budget inside a long line, reporting only what it read', async () => {
    const { satchel } = await openTemp();
    // One 1 MB line (minified JSON): "needle" in its first kilobyte, "tail" only at its end.
    await satchel.writeFile('ws', '/min.json', `{"a":"needle ${'z'.repeat(1_000_000)} tail"}`);
    const head = await satchel.grep('ws', 'needle', { maxBytes: 1000 });
    expect(head).toMatchObject({ truncated: true, reason: 'bytes', bytesScanned: 1000 });
    expect(head.hits).toEqual([
      { path: '/min.json', seq: 1, line: 1, text: expect.stringContaining('needle') },
    ]);
    expect((await satchel.grep('ws', 'tail', { maxBytes: 1000 })).hits).toEqual([]);
    // Where the budget cut the line is not its end: `$` does not match there.
    expect((await satchel.grep('ws', 'z$', { regex: true, maxBytes: 1000 })).hits).toEqual([]);
    expect((await satchel.grep('ws', 'z"}$', { regex: true })).hits).toEqual([]);
    expect((await satchel.grep('ws', 'tail"}$', { regex: true })).hits).toHaveLength(1);
  });
});
