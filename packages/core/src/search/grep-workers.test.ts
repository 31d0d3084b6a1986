/** The grep worker pool: a scan past its deadline is killed, not waited for; close ends all. */
import { afterEach, describe, expect, it } from 'vitest';
import type { MatcherSpec } from './grep-scan.js';
import { GrepWorkers, type ScanJob } from './grep-workers.js';

const costly: MatcherSpec = { kind: 're2', source: '(.*a){399}', flags: 0, fixed: false };
const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

function job(spec: MatcherSpec, texts: string | string[], ms: number): ScanJob {
  const files = [texts].flat().map((text) => ({ bytes: encode(text), cut: false }));
  return { spec, files, limit: 10, deadline: Date.now() + ms };
}

let workers: GrepWorkers | null = null;
afterEach(async () => {
  await workers?.close();
  workers = null;
});

describe('GrepWorkers', () => {
  it('compiles and scans on a worker, and returns the hits of each file', async () => {
    workers = new GrepWorkers({ size: 1 });
    const spec: MatcherSpec = { kind: 're2', source: 'x\\d+', flags: 0, fixed: false };
    expect(await workers.compile(spec, Date.now() + 5000)).toEqual({ programSize: 5 });
    const bad: MatcherSpec = { ...spec, source: '(a)\\1' };
    expect(await workers.compile(bad, Date.now() + 5000)).toEqual({
      invalid: expect.stringContaining('\\1'),
    });
    const files = ['a\nx1 y\r\nx\nzx22\n', 'none', 'x3'];
    expect(await workers.scan(job(spec, files, 5000))).toEqual({
      hits: [
        { file: 0, line: 2, text: 'x1 y' },
        { file: 0, line: 4, text: 'zx22' },
        { file: 2, line: 1, text: 'x3' },
      ],
      stop: null,
      files: 3,
    });
  });

  it('terminates a scan past its deadline, so the next one does not wait behind it', async () => {
    workers = new GrepWorkers({ size: 1 });
    await workers.compile(costly, Date.now() + 20_000);
    // One 200 KB line: RE2 runs for many seconds inside it, where no clock is read.
    const started = performance.now();
    expect(await workers.scan(job(costly, 'a'.repeat(200_000), 500))).toBeNull();
    expect(performance.now() - started).toBeLessThan(1500);
    // Its thread is gone, not left spinning: the process is idle while nothing is asked.
    const cpu = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(process.cpuUsage(cpu).user / 1000).toBeLessThan(250);
    // One worker only: had the first been left running, this would wait for it.
    const next = await workers.scan(job({ kind: 'literal', text: 'b' }, 'a\nb\n', 5000));
    expect(next).toEqual({ hits: [{ file: 0, line: 2, text: 'b' }], stop: null, files: 1 });
  });

  it('gives up on a scan still waiting for a busy worker at its deadline', async () => {
    workers = new GrepWorkers({ size: 1 });
    await workers.compile(costly, Date.now() + 20_000);
    const busy = workers.scan(job(costly, 'a'.repeat(200_000), 3000));
    const started = performance.now();
    expect(await workers.scan(job(costly, 'a', 300))).toBeNull();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await busy).toBeNull();
  });

  it('rejects scans running or waiting when closed, and any scan after', async () => {
    workers = new GrepWorkers({ size: 1 });
    const failure = (error: unknown) => error;
    const running = workers.scan(job(costly, 'a'.repeat(200_000), 20_000)).catch(failure);
    const waiting = workers.scan(job(costly, 'a', 20_000)).catch(failure);
    const started = performance.now();
    await workers.close();
    expect(await running).toMatchObject({ code: 'INTERNAL' });
    expect(await waiting).toMatchObject({ code: 'INTERNAL' });
    expect(performance.now() - started).toBeLessThan(1000);
    await expect(workers.scan(job(costly, 'a', 1000))).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('closing'),
    });
  });
});
