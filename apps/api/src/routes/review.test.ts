/**
 * Comments and share links through a real server on 127.0.0.1: the derived comment routes with
 * each role's key, and share links opened by a fresh client that sends no key at all.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, serve } from '../serve.js';
import { createHarness, type Harness } from '../test-support/harness.js';

let h: Harness;
let server: RunningServer;
let base: string;

beforeAll(async () => {
  h = await createHarness();
  server = await serve(h.engine, { host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${server.port}`;
  await h.engine.writeFile('demo', '/report.md', 'one\ntwo\nthree\nfour\nfive\n');
  await h.engine.writeFile('demo', '/page.html', '<script>alert(1)</script>');
  await h.engine.writeFile('demo', '/out/a.txt', 'A');
  await h.engine.writeFile('demo', '/out/b.txt', 'B');
  await h.engine.writeFile('demo', '/secret.txt', 'S');
});
afterAll(async () => {
  await server.close();
  await h.close();
});

function call(method: string, path: string, key: string | null, body?: unknown) {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      ...(key === null ? {} : { Authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('comments over REST', () => {
  it('a viewer comments on lines 3–5, the editor lists it and resolves it', async () => {
    const created = await call('POST', '/v1/workspaces/demo/comments', h.keys.viewer, {
      path: '/report.md',
      startLine: 3,
      endLine: 5,
      body: 'source?',
    });
    expect(created.status).toBe(201);
    const comment = (await created.json()) as { id: string };
    const listed = await call('GET', '/v1/workspaces/demo/comments?status=open', h.keys.editor);
    expect(await listed.json()).toMatchObject({
      items: [{ id: comment.id, anchor: { startLine: 3, endLine: 5 }, outdated: false }],
      nextCursor: null,
    });
    const reply = await call('POST', '/v1/workspaces/demo/comments', h.keys.editor, {
      parentId: comment.id,
      body: 'added',
    });
    expect(reply.status).toBe(201);
    const resolved = await call(
      'POST',
      `/v1/workspaces/demo/comments/${comment.id}/resolve`,
      h.keys.editor,
      {},
    );
    expect(await resolved.json()).toMatchObject({
      resolved: true,
      resolvedBy: 'ed',
      replyCount: 1,
    });
    const stranger = await call('GET', '/v1/workspaces/demo/comments', h.keys.stranger);
    expect(stranger.status).toBe(404);
    const bad = await call('GET', '/v1/workspaces/demo/comments?status=maybe', h.keys.viewer);
    expect(bad.status).toBe(400);
  });
});

describe('share links over REST', () => {
  async function share(body: Record<string, unknown>) {
    const res = await call('POST', '/v1/workspaces/demo/share-links', h.keys.editor, body);
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; token: string; url: string };
  }

  it('a client with no key reads a shared file, with safe headers, until the limit', async () => {
    const link = await share({ path: '/report.md', maxDownloads: 1 });
    expect(link.url).toBe(`/s/${link.token}`);
    const res = await fetch(`${base}${link.url}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('one\ntwo\nthree\nfour\nfive\n');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
    const again = await fetch(`${base}${link.url}`);
    expect(again.status).toBe(403);
    expect(await again.json()).toMatchObject({ code: 'FORBIDDEN', reason: 'download_limit' });
  });

  it('never renders agent HTML inline', async () => {
    const link = await share({ path: '/page.html' });
    const res = await fetch(`${base}${link.url}`);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('takes the password as a header or a POSTed form, never in the URL', async () => {
    const link = await share({ path: '/out/a.txt', password: 'open sesame' });
    const none = await fetch(`${base}${link.url}`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ reason: 'password_required' });
    const wrong = await fetch(`${base}${link.url}`, {
      headers: { 'Satchel-Share-Password': 'nope nope' },
    });
    expect(wrong.status).toBe(401);
    const header = await fetch(`${base}${link.url}`, {
      headers: { 'Satchel-Share-Password': 'open sesame' },
    });
    expect(await header.text()).toBe('A');
    const form = await fetch(`${base}${link.url}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'password=open+sesame',
    });
    expect(form.status).toBe(200);
    expect(await form.text()).toBe('A');
  });

  it('lists a shared folder, reads under it, refuses escapes; revoked and unknown links refused', async () => {
    const link = await share({ path: '/out' });
    const listing = await fetch(`${base}${link.url}`);
    expect(await listing.json()).toMatchObject({
      path: '/',
      items: [{ path: '/a.txt' }, { path: '/b.txt' }],
      nextCursor: null,
    });
    expect(await (await fetch(`${base}${link.url}/b.txt`)).text()).toBe('B');
    // A raw "..", as a client that does not normalise URLs sends it.
    expect(await rawGet(`${link.url}/../secret.txt`)).toBe(400);
    expect(await rawGet(`${link.url}/%2e%2e/secret.txt`)).toBe(400);
    expect((await fetch(`${base}${link.url}/secret.txt`)).status).toBe(404);

    const revoke = await call(
      'DELETE',
      `/v1/workspaces/demo/share-links/${link.id}`,
      h.keys.editor,
    );
    expect(await revoke.json()).toMatchObject({ state: 'revoked' });
    const revoked = await fetch(`${base}${link.url}`);
    expect(revoked.status).toBe(403);
    expect(await revoked.json()).toMatchObject({ reason: 'revoked' });
    expect((await fetch(`${base}/s/shr_0000000000000000_${'x'.repeat(43)}`)).status).toBe(404);

    const audit = await h.engine.listAudit({ workspace: 'demo', limit: 1000 });
    expect(
      audit.items.filter((e) => e.actor === `share:${link.id}`).map((e) => [e.path, e.outcome]),
    ).toEqual(
      expect.arrayContaining([
        ['/out', 'ok'],
        ['/out/b.txt', 'ok'],
        ['/out', 'refused'],
      ]),
    );
  });

  it('are refused to viewers and listed (without tokens) for editors', async () => {
    const viewer = await call('POST', '/v1/workspaces/demo/share-links', h.keys.viewer, {
      path: '/report.md',
    });
    expect(viewer.status).toBe(403);
    const list = await call('GET', '/v1/workspaces/demo/share-links?limit=2', h.keys.editor);
    const page = (await list.json()) as { items: unknown[]; nextCursor: string | null };
    expect(page.items).toHaveLength(2);
    expect(page.nextCursor).not.toBeNull();
    expect(JSON.stringify(page)).not.toContain('token');
  });
});

/** A GET whose request target is sent exactly as given (no URL normalisation). */
function rawGet(target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path: target }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
