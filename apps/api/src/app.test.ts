/** The app as a whole: authentication, problem responses, request ids, routing errors, limits. */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, problemOf } from './test-support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(options?: Parameters<typeof createHarness>[0]): Promise<Harness> {
  h = await createHarness(options);
  return h;
}

describe('authentication', () => {
  it('serves /healthz without a key', async () => {
    const res = await (await harness()).request('GET', '/healthz', { key: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('serves /readyz without a key: 200 while the stores answer, 503 with Retry-After once they do not', async () => {
    const app = await harness();
    const ready = await app.request('GET', '/readyz', { key: null });
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'ok', content: 'ok' });
    await app.engine.close();
    const gone = await app.request('GET', '/readyz', { key: null });
    expect(gone.status).toBe(503);
    expect(gone.headers.get('Retry-After')).toBe('1');
    expect(await gone.json()).toMatchObject({ status: 'unavailable', database: 'unreachable' });
  });

  it('answers 401 problem+json with WWW-Authenticate for a missing, malformed or unknown key', async () => {
    const app = await harness();
    const missing = await app.request('GET', '/v1/workspaces', { key: null });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('WWW-Authenticate')).toBe('Bearer realm="satchel"');
    expect(await problemOf(missing)).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });

    const basic = await app.request('GET', '/v1/workspaces', {
      key: null,
      headers: { Authorization: 'Basic YWRtaW46YWRtaW4=' },
    });
    expect(basic.status).toBe(401);

    const unknown = await app.request('GET', '/v1/workspaces', {
      key: 'satchel_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');
  });

  it('refuses a revoked key', async () => {
    const app = await harness();
    const created = await app.engine.createKey({ principal: 'ed' });
    expect((await app.request('GET', '/v1/whoami', { key: created.key })).status).toBe(200);
    await app.engine.revokeKey(created.info.id);
    expect((await app.request('GET', '/v1/whoami', { key: created.key })).status).toBe(401);
  });

  it('acts as the key’s principal', async () => {
    const app = await harness();
    const res = await app.request('GET', '/v1/whoami', { key: app.keys.editor });
    expect(await res.json()).toMatchObject({ principal: 'ed', admin: false });
  });
});

describe('problem responses and request ids', () => {
  it('echoes a sane X-Request-Id and generates one otherwise', async () => {
    const app = await harness();
    const given = await app.request('GET', '/healthz', { headers: { 'X-Request-Id': 'trace-42' } });
    expect(given.headers.get('X-Request-Id')).toBe('trace-42');
    const insane = await app.request('GET', '/v1/nope', { headers: { 'X-Request-Id': 'a b' } });
    const id = insane.headers.get('X-Request-Id') ?? '';
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await problemOf(insane)).toMatchObject({ requestId: id });
  });

  it('answers unknown routes with 404 and wrong methods with 405 and Allow', async () => {
    const app = await harness();
    const unknown = await app.request('GET', '/v1/nothing/here');
    expect(unknown.status).toBe(404);
    expect(await problemOf(unknown)).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect((await app.request('GET', '/elsewhere', { key: null })).status).toBe(404);

    const wrong = await app.request('PATCH', '/v1/workspaces/demo/files/a.txt');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('Allow')).toBe('DELETE, GET, HEAD, POST, PUT');
    expect(await problemOf(wrong)).toMatchObject({ status: 405, code: 'INVALID_INPUT' });
    expect((await app.request('PUT', '/v1/workspaces')).headers.get('Allow')).toBe(
      'GET, HEAD, POST',
    );
  });

  it('turns an unexpected fault into a 500 with a request id, logged, without internals', async () => {
    const faults: unknown[] = [];
    const app = await harness({ logFault: (fault) => faults.push(fault) });
    // A closed engine makes every call fail in a way no client caused.
    await app.engine.close();
    const res = await app.request('GET', '/v1/workspaces/demo', {
      headers: { 'X-Request-Id': 'fault-1' },
    });
    expect(res.status).toBe(500);
    const body = await problemOf(res);
    expect(body).toMatchObject({ code: 'INTERNAL', status: 500, requestId: 'fault-1' });
    expect(String(body.detail)).toContain('fault-1');
    expect(JSON.stringify(body)).not.toMatch(/at |\.ts|\.js|database/i);
    expect(faults).toEqual([expect.objectContaining({ requestId: 'fault-1', method: 'GET' })]);
  });
});

describe('request bodies', () => {
  it('refuses malformed JSON, wrong types and unknown fields with 400 naming the field', async () => {
    const app = await harness();
    const cases: [unknown, string][] = [
      ['{"name": ', 'body'],
      [{ name: 7 }, 'name'],
      [{ name: 'x', colour: 'red' }, 'colour'],
      ['', 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await app.request('POST', '/v1/workspaces', {
        body: typeof body === 'string' ? body : (body as Record<string, unknown>),
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await problemOf(res)).toMatchObject({ code: 'INVALID_INPUT', field });
    }
  });

  it('refuses uploads over maxBodyBytes with 413, declared or streamed, and keeps nothing', async () => {
    const app = await harness({ maxBodyBytes: 1024 });
    const declared = await app.request('PUT', '/v1/workspaces/demo/files/big.bin', {
      body: 'x'.repeat(2048),
    });
    expect(declared.status).toBe(413);
    expect(await problemOf(declared)).toMatchObject({ code: 'TOO_LARGE', limit: 1024 });

    // A chunked body declares no length: the limit is enforced while it streams.
    const chunks = [new Uint8Array(600), new Uint8Array(600)];
    const streamed = await app.request('PUT', '/v1/workspaces/demo/files/big.bin', {
      body: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(next);
        },
      }),
    });
    expect(streamed.status).toBe(413);
    expect((await app.request('GET', '/v1/workspaces/demo/files/big.bin')).status).toBe(404);
    const fits = await app.request('PUT', '/v1/workspaces/demo/files/ok.bin', {
      body: 'x'.repeat(1024),
    });
    expect(fits.status).toBe(200);
  });

  it('refuses JSON bodies over maxJsonBytes with 413', async () => {
    const app = await harness({ maxJsonBytes: 64 });
    const res = await app.request('POST', '/v1/workspaces', { body: { name: 'x'.repeat(100) } });
    expect(res.status).toBe(413);
  });
});
