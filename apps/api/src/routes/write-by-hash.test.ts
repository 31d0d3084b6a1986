/** `PUT …/files/<path>` with `Satchel-Content-Hash`: a write of content the workspace holds, no body. */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, problemOf } from '../test-support/harness.js';

let h: Harness;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
beforeEach(async () => {
  h = await createHarness();
  await h.request('PUT', '/v1/workspaces/demo/files/a.txt', { body: 'shared content' });
});
afterEach(async () => {
  await h.close();
});

describe('write by content hash', () => {
  it('writes known content without a body, with the usual conditions', async () => {
    const put = (path: string, headers: Record<string, string>) =>
      h.request('PUT', `/v1/workspaces/demo/files/${path}`, {
        headers: { 'Satchel-Content-Hash': sha('shared content'), ...headers },
      });
    const created = await put('copy.txt', { 'If-None-Match': '*' });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      path: '/copy.txt',
      size: 14,
      hash: sha('shared content'),
    });
    expect(await (await h.request('GET', '/v1/workspaces/demo/files/copy.txt')).text()).toBe(
      'shared content',
    );
    const again = await put('copy.txt', { 'If-None-Match': '*' });
    expect(again.status).toBe(412);
  });

  it('answers 404 content_unknown for content the workspace lacks, and 400 for a body or a bad hash', async () => {
    const unknown = await h.request('PUT', '/v1/workspaces/demo/files/x.txt', {
      headers: { 'Satchel-Content-Hash': sha('never stored') },
    });
    expect(unknown.status).toBe(404);
    expect(await problemOf(unknown)).toMatchObject({
      code: 'NOT_FOUND',
      reason: 'content_unknown',
    });
    const withBody = await h.request('PUT', '/v1/workspaces/demo/files/x.txt', {
      body: 'data',
      headers: { 'Satchel-Content-Hash': sha('shared content') },
    });
    expect(withBody.status).toBe(400);
    const bad = await h.request('PUT', '/v1/workspaces/demo/files/x.txt', {
      headers: { 'Satchel-Content-Hash': 'abc' },
    });
    expect(bad.status).toBe(400);
    expect((await h.request('GET', '/v1/workspaces/demo/files/x.txt')).status).toBe(404);
  });
});
