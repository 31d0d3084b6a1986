/** Structured logs: an access line per request, faults with their stack, never a key. */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './test-support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A pino logger at `level` writing its JSON lines into `lines`. */
function memoryLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const logger = pino(
    { level },
    {
      write(line: string) {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return { logger, lines, raw };
}

describe('structured logs', () => {
  it('writes one access line per request with the request id, route and caller', async () => {
    const log = memoryLogger('info');
    h = await createHarness({ logger: log.logger });
    const res = await h.request('PUT', '/v1/workspaces/demo/files/notes/a.txt', {
      key: h.keys.editor,
      body: 'twelve bytes',
      headers: { 'X-Request-Id': 'req-7' },
    });
    const body = await res.text();
    const access = log.lines.filter((l) => l.msg === 'request');
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      level: 30,
      requestId: 'req-7',
      method: 'PUT',
      route: '/v1/workspaces/:ws/files/*',
      path: '/v1/workspaces/demo/files/notes/a.txt',
      status: 200,
      bytesIn: 12,
      bytesOut: Buffer.byteLength(body),
      actor: 'ed',
    });
    expect(access[0]?.durationMs).toEqual(expect.any(Number));
  });

  it('logs a fault at error with its stack, which the response does not carry', async () => {
    const log = memoryLogger('info');
    h = await createHarness({ logger: log.logger });
    await h.engine.close();
    const res = await h.request('GET', '/v1/workspaces/demo', {
      headers: { 'X-Request-Id': 'fault-9' },
    });
    expect(res.status).toBe(500);
    const fault = log.lines.find((l) => l.level === 50);
    expect(fault).toMatchObject({ requestId: 'fault-9', method: 'GET', msg: 'request failed' });
    const err = fault?.err as { stack?: string } | undefined;
    expect(err?.stack).toMatch(/\n\s+at /);
    expect(await res.text()).not.toMatch(/\n\s+at /);
  });

  it('never logs a bearer key or the Authorization header', async () => {
    const log = memoryLogger('trace');
    h = await createHarness({ logger: log.logger });
    const keys = Object.values(h.keys);
    for (const key of keys) {
      await h.request('GET', '/v1/whoami', { key });
      await h.request('POST', '/v1/keys', { key, body: { name: key } });
    }
    await h.request('GET', '/v1/whoami', { key: `${h.keys.admin}x` });
    expect(log.raw.length).toBeGreaterThanOrEqual(2 * keys.length + 1);
    const all = log.raw.join('');
    for (const key of keys) expect(all).not.toContain(key);
    expect(all.toLowerCase()).not.toContain('authorization');
    expect(all).not.toContain('bearer');
  });

  it('keeps access lines out of the default logger (warn)', async () => {
    const log = memoryLogger('warn');
    h = await createHarness({ logger: log.logger });
    await h.request('GET', '/v1/workspaces');
    expect(log.lines).toEqual([]);
  });
});
