/** create_upload_url / create_download_url: URLs an agent hands to curl; the bytes skip the model. */
import { describe, expect, it } from 'vitest';
import { call, connect, errorOf, ok, openEngine } from './test-support/client.js';

/** The token of a signed URL (the engine redeems it as the API's /signed route would). */
const tokenOf = (url: string) => url.split('/signed/')[1] ?? '';

describe('transfer URL tools', () => {
  it('sign an upload and a download URL that move the bytes without the conversation', async () => {
    const engine = await openEngine();
    const client = await connect(engine);
    const up = await ok<{ url: string; expiresAt: string }>(client, 'create_upload_url', {
      path: '/data/big.bin',
      size: 4,
    });
    expect(up.url).toMatch(/\/signed\//);
    await engine.uploadBySignedUrl(tokenOf(up.url), new Uint8Array([1, 2, 3, 4]));
    const down = await ok<{ url: string }>(client, 'create_download_url', {
      path: '/data/big.bin',
    });
    const file = await engine.downloadBySignedUrl(tokenOf(down.url));
    const bytes: Buffer[] = [];
    for await (const piece of file.body) bytes.push(piece as Buffer);
    expect([...Buffer.concat(bytes)]).toEqual([1, 2, 3, 4]);
  });

  it('offers no upload URL to a read-only server, and refuses a lifetime past the maximum', async () => {
    const engine = await openEngine();
    const readOnly = await connect(engine, { readOnly: true });
    const names = (await readOnly.listTools()).tools.map((t) => t.name);
    expect(names).toContain('create_download_url');
    expect(names).not.toContain('create_upload_url');
    await engine.writeFile('ws', '/a.txt', 'a');
    const client = await connect(engine);
    const result = await call(client, 'create_download_url', {
      path: '/a.txt',
      expiresIn: 30 * 24 * 3600,
    });
    expect(errorOf(result)).toMatchObject({ code: 'INVALID_INPUT' });
  });
});
