/** File reads never run stored content as a page of the API's origin (security issue 20, item 16). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../test-support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const file = (path: string) => `/v1/workspaces/demo/files${path}`;

const SANDBOX = "default-src 'none'; sandbox";

describe('content safety headers on file reads', () => {
  it.each([
    ['/x.html', '<script>alert(1)</script>'],
    ['/x.svg', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'],
    ['/x.xhtml', '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>'],
    ['/x.xml', '<a:script xmlns:a="http://www.w3.org/1999/xhtml">alert(1)</a:script>'],
  ])('sends %s as an attachment, sandboxed and never sniffed', async (path, body) => {
    await h.request('PUT', file(path), { body });
    for (const method of ['GET', 'HEAD']) {
      const res = await h.request(method, file(path));
      expect(res.status).toBe(200);
      expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
      expect(res.headers.get('Content-Security-Policy')).toBe(SANDBOX);
      expect(res.headers.get('Content-Disposition')).toMatch(/^attachment; filename=/);
    }
  });

  it('sends passive types inline with the file name, RFC 6266 encoded', async () => {
    await h.request('PUT', file('/notes/résumé "q3".txt'), { body: 'hello' });
    const res = await h.request('GET', file('/notes/r%C3%A9sum%C3%A9%20%22q3%22.txt'));
    expect(await res.text()).toBe('hello');
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(res.headers.get('Content-Security-Policy')).toBe(SANDBOX);
    expect(res.headers.get('Content-Disposition')).toBe(
      `inline; filename="r?sum? \\"q3\\".txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22q3%22.txt`,
    );
  });

  it('sends the headers on ranged, pinned and not-modified reads too', async () => {
    await h.request('PUT', file('/p.html'), { body: '<b>x</b>' });
    const ranged = await h.request('GET', file('/p.html'), { headers: { Range: 'bytes=0-2' } });
    expect(ranged.status).toBe(206);
    const pinned = await h.request('GET', file('/p.html?version=1'));
    const notModified = await h.request('GET', file('/p.html'), {
      headers: { 'If-None-Match': '"1"' },
    });
    expect(notModified.status).toBe(304);
    for (const res of [ranged, pinned, notModified]) {
      expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
      expect(res.headers.get('Content-Security-Policy')).toBe(SANDBOX);
    }
    expect(ranged.headers.get('Content-Disposition')).toMatch(/^attachment/);
  });
});
