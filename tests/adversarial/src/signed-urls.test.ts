/**
 * Signed transfer URLs as an attacker meets them, through a real server on 127.0.0.1: the URL
 * moves one file's bytes without an API key, once, before it expires, for the path, size and
 * hash it was signed for, and only while the key that signed it still could. A download URL
 * never reveals another workspace's content, not even after its own workspace is deleted and a
 * new one takes the name.
 */
import { createHash } from 'node:crypto';
import { type RunningServer, serve } from '@satchel/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './support.js';

let world: World;
let server: RunningServer;
beforeAll(async () => {
  world = await createWorld();
  server = await serve(world.engine, { host: '127.0.0.1', port: 0 });
}, 30_000);
afterAll(async () => {
  await server.close();
  await world.close();
});

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Signs a URL through the API (as `key`); returns the URL or the refusal's status. */
async function sign(
  key: string | null,
  workspace: string,
  path: string,
  kind: 'upload-url' | 'download-url',
  body: Record<string, unknown> = {},
): Promise<string> {
  const res = await fetch(`${server.url}/v1/workspaces/${workspace}/files${path}?${kind}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  const { url, expiresAt } = (await res.json()) as { url: string; expiresAt: string };
  expect(url.startsWith(`${server.url}/signed/`)).toBe(true);
  expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
  return url;
}

/** `curl -T`: a PUT with no Authorization header. */
const put = (url: string, body: string) => fetch(url, { method: 'PUT', body });

async function refusal(res: Response): Promise<{ status: number; reason?: unknown }> {
  const body = (await res.json()) as { reason?: unknown };
  return { status: res.status, reason: body.reason };
}

async function head(path: string): Promise<string | null> {
  const res = await world.request('GET', `/v1/workspaces/demo/files${path}`);
  return res.status === 200 ? res.text() : null;
}

describe('upload URLs', () => {
  it('write once without a key; a second use is refused', async () => {
    const url = await sign(world.keys.editor, 'demo', '/up/once.txt', 'upload-url');
    const first = await put(url, 'first');
    expect(first.status).toBe(200);
    expect(await head('/up/once.txt')).toBe('first');
    expect(await refusal(await put(url, 'second'))).toEqual({ status: 401, reason: 'used' });
    expect(await head('/up/once.txt')).toBe('first');
  });

  it('are refused after they expire', async () => {
    const url = await sign(world.keys.editor, 'demo', '/up/late.txt', 'upload-url', {
      expiresIn: 1,
    });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await refusal(await put(url, 'late'))).toEqual({ status: 401, reason: 'expired' });
    expect(await head('/up/late.txt')).toBeNull();
  });

  it('cannot be turned to another path, workspace or direction', async () => {
    const url = await sign(world.keys.editor, 'demo', '/up/mine.txt', 'upload-url');
    const [payload, signature] = (url.split('/signed/')[1] ?? '').split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    for (const change of [
      { p: '/up/other.txt' },
      { w: 'other' },
      { o: 'd' },
      { e: Date.now() + 9e9 },
    ]) {
      const forged = Buffer.from(JSON.stringify({ ...claims, ...change })).toString('base64url');
      const res = await put(`${server.url}/signed/${forged}.${signature}`, 'forged');
      expect(await refusal(res)).toEqual({ status: 401, reason: 'invalid' });
    }
    // Refusals are audited at the server level, without the token.
    const log = await world.engine.listAudit({ server: true, limit: 1000 });
    const refused = log.items.filter((e) => e.action === 'PUT /signed');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({ outcome: 'refused', code: 'UNAUTHENTICATED' });
    expect(JSON.stringify(log)).not.toContain(signature);
    // A GET of an upload URL is not a download of the path.
    const get = await fetch(url);
    expect(await refusal(get)).toEqual({ status: 401, reason: 'kind' });
    expect(await head('/up/other.txt')).toBeNull();
    // The genuine URL still works: refusals did not use it up.
    expect((await put(url, 'mine')).status).toBe(200);
  });

  it('refuse other content than the size and hash they name, and stay usable', async () => {
    const url = await sign(world.keys.editor, 'demo', '/up/exact.txt', 'upload-url', {
      size: 5,
      sha256: sha('exact'),
    });
    expect((await put(url, 'exact and more')).status).toBe(413);
    expect(await refusal(await put(url, 'short'))).toEqual({
      status: 400,
      reason: 'hash_mismatch',
    });
    expect(await refusal(await put(url, 'tiny'))).toEqual({ status: 400, reason: 'size_mismatch' });
    expect(await head('/up/exact.txt')).toBeNull();
    expect((await put(url, 'exact')).status).toBe(200);
    expect(await head('/up/exact.txt')).toBe('exact');
  });

  it("are refused once the signer's key is revoked, or the signer lost write access", async () => {
    const { key, info } = await world.engine.createKey({ principal: 'ed' });
    const url = await sign(key, 'demo', '/up/revoked.txt', 'upload-url');
    await world.engine.revokeKey(info.id);
    expect((await put(url, 'after revocation')).status).toBe(401);
    const demoted = await sign(world.keys.editor, 'demo', '/up/demoted.txt', 'upload-url');
    await world.engine.setMember('demo', 'ed', 'viewer');
    try {
      expect((await put(demoted, 'after demotion')).status).toBe(403);
    } finally {
      await world.engine.setMember('demo', 'ed', 'editor');
    }
    expect(await head('/up/revoked.txt')).toBeNull();
    expect(await head('/up/demoted.txt')).toBeNull();
  });

  it('cannot be signed beyond what the signer may do', async () => {
    const viewer = await fetch(`${server.url}/v1/workspaces/demo/files/x.txt?upload-url`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${world.keys.viewer}` },
    });
    expect(viewer.status).toBe(403);
    const prefix = await fetch(`${server.url}/v1/workspaces/demo/files/x.txt?upload-url`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${world.keys.pathPrefix}` },
    });
    expect(prefix.status).toBe(403);
    const hidden = await fetch(`${server.url}/v1/workspaces/other/files/notes.md?download-url`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${world.keys.editor}` },
    });
    expect(hidden.status).toBe(404);
    const tooLong = await fetch(`${server.url}/v1/workspaces/demo/files/x.txt?download-url`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${world.keys.editor}` },
      body: JSON.stringify({ expiresIn: 10 * 24 * 3600 }),
    });
    expect(tooLong.status).toBe(400);
  });
});

describe('download URLs', () => {
  it('read the file without a key, as an attachment, once unless reusable', async () => {
    const url = await sign(world.keys.viewer, 'demo', '/notes.md', 'download-url');
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Disposition')).toMatch(/^attachment/);
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(await res.text()).toBe('hello\n');
    expect(await refusal(await fetch(url))).toEqual({ status: 401, reason: 'used' });
    const reusable = await sign(world.keys.viewer, 'demo', '/notes.md', 'download-url', {
      reusable: true,
    });
    for (let i = 0; i < 3; i++) expect(await (await fetch(reusable)).text()).toBe('hello\n');
  });

  it("never reveal another workspace's content, even one later created under the same name", async () => {
    await world.engine.createWorkspace('fleeting');
    await world.engine.setMember('fleeting', 'ed', 'owner');
    await world.engine.writeFile('fleeting', '/secret.txt', 'old');
    const url = await sign(world.keys.editor, 'fleeting', '/secret.txt', 'download-url', {
      reusable: true,
    });
    expect(await (await fetch(url)).text()).toBe('old');
    await world.engine.deleteWorkspace('fleeting');
    await world.engine.createWorkspace('fleeting');
    await world.engine.setMember('fleeting', 'ed', 'owner');
    await world.engine.writeFile('fleeting', '/secret.txt', 'new owner, new secret');
    const res = await fetch(url);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('new secret');
    // Tampering the workspace into the token breaks its signature.
    const [payload, signature] = (url.split('/signed/')[1] ?? '').split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, w: 'other', p: '/notes.md' })).toString(
      'base64url',
    );
    expect((await fetch(`${server.url}/signed/${forged}.${signature}`)).status).toBe(401);
  });
});
