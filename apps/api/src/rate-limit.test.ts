/** Rate limiting per key: a burst at twice the quota admits exactly the quota. */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, problemOf } from './test-support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const QUOTA = 5;

/** Sends `count` requests at once as `key` and returns their responses. */
async function burst(app: Harness, key: string, count: number): Promise<Response[]> {
  return Promise.all(
    Array.from({ length: count }, () => app.request('GET', '/v1/workspaces', { key })),
  );
}

describe('rate limit per key', () => {
  it('admits exactly the quota of a burst at twice it; the rest get 429 problem+json', async () => {
    h = await createHarness({ rateLimit: { limit: QUOTA, windowSeconds: 60 } });
    const responses = await burst(h, h.keys.editor, 2 * QUOTA);
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(QUOTA);
    expect(limited).toHaveLength(QUOTA);

    for (const res of ok) {
      expect(res.headers.get('RateLimit-Policy')).toBe(`${QUOTA};w=60`);
      expect(res.headers.get('RateLimit')).toMatch(/^limit=5, remaining=[0-4], reset=\d+$/);
    }
    for (const res of limited) {
      const retryAfter = Number(res.headers.get('Retry-After'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(res.headers.get('RateLimit-Policy')).toBe(`${QUOTA};w=60`);
      expect(res.headers.get('RateLimit')).toMatch(/^limit=5, remaining=0, reset=\d+$/);
      expect(await problemOf(res)).toMatchObject({
        code: 'RATE_LIMITED',
        status: 429,
        limit: QUOTA,
        windowSeconds: 60,
        retryAfter,
      });
    }
  });

  it('gives every key its own budget', async () => {
    h = await createHarness({ rateLimit: { limit: QUOTA, windowSeconds: 60 } });
    await burst(h, h.keys.editor, QUOTA);
    expect((await h.request('GET', '/v1/whoami', { key: h.keys.editor })).status).toBe(429);
    const viewer = await burst(h, h.keys.viewer, QUOTA);
    expect(viewer.map((r) => r.status)).toEqual(Array(QUOTA).fill(200));
  });

  it('exempts admin keys by default, and limits them with admin: true', async () => {
    h = await createHarness({ rateLimit: { limit: QUOTA, windowSeconds: 60 } });
    const admin = await burst(h, h.keys.admin, 2 * QUOTA);
    expect(admin.every((r) => r.status === 200)).toBe(true);
    expect(admin[0]?.headers.get('RateLimit')).toBeNull();
    await h.close();

    h = await createHarness({ rateLimit: { limit: QUOTA, windowSeconds: 60, admin: true } });
    const limited = await burst(h, h.keys.admin, 2 * QUOTA);
    expect(limited.filter((r) => r.status === 429)).toHaveLength(QUOTA);
  });

  it('limits by default (6000 per 60 s) and can be turned off', async () => {
    h = await createHarness();
    const res = await h.request('GET', '/v1/whoami', { key: h.keys.editor });
    expect(res.headers.get('RateLimit-Policy')).toBe('6000;w=60');
    await h.close();

    h = await createHarness({ rateLimit: false });
    const off = await burst(h, h.keys.editor, 20);
    expect(off.every((r) => r.status === 200 && r.headers.get('RateLimit') === null)).toBe(true);
  });

  it('does not count requests without a valid key against anyone', async () => {
    h = await createHarness({ rateLimit: { limit: QUOTA, windowSeconds: 60 } });
    const anonymous = await burst(h, 'satchel_nope', 2 * QUOTA);
    expect(anonymous.every((r) => r.status === 401)).toBe(true);
    const editor = await burst(h, h.keys.editor, QUOTA);
    expect(editor.every((r) => r.status === 200)).toBe(true);
  });
});
