/** Conditional and range requests on files, as RFC 9110 §13 and §14 describe them. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, problemOf } from '../test-support/harness.js';

let h: Harness;
const url = '/v1/workspaces/demo/files/doc.txt';
const CONTENT = '0123456789abcdefghij';

beforeEach(async () => {
  h = await createHarness();
  // Version 1, then the head at version 2.
  await h.request('PUT', url, { body: 'first' });
  await h.request('PUT', url, { body: CONTENT });
});
afterEach(async () => {
  await h.close();
});

const get = (headers: Record<string, string>, path = url) => h.request('GET', path, { headers });

describe('If-Match / If-None-Match on writes', () => {
  it('writes only when If-Match names the head, else 412 with nothing written', async () => {
    const stale = await h.request('PUT', url, { body: 'x', headers: { 'If-Match': '"1"' } });
    expect(stale.status).toBe(412);
    expect(await problemOf(stale)).toMatchObject({ code: 'PRECONDITION_FAILED' });
    const fresh = await h.request('PUT', url, { body: 'y', headers: { 'If-Match': '"2"' } });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('ETag')).toBe('"3"');
    expect(await (await get({})).text()).toBe('y');
  });

  it('accepts If-Match: * and lists, comparing strongly (a weak tag never matches)', async () => {
    expect((await h.request('PUT', url, { body: 'a', headers: { 'If-Match': '*' } })).status).toBe(
      200,
    );
    const list = await h.request('PUT', url, { body: 'b', headers: { 'If-Match': '"9", "3"' } });
    expect(list.status).toBe(200);
    const weak = await h.request('PUT', url, { body: 'c', headers: { 'If-Match': 'W/"4"' } });
    expect(weak.status).toBe(412);
    const missing = await h.request('PUT', '/v1/workspaces/demo/files/none.txt', {
      body: 'x',
      headers: { 'If-Match': '*' },
    });
    expect(missing.status).toBe(412);
  });

  it('creates only with If-None-Match: *, 412 when the file exists', async () => {
    const exists = await h.request('PUT', url, { body: 'x', headers: { 'If-None-Match': '*' } });
    expect(exists.status).toBe(412);
    const created = await h.request('PUT', '/v1/workspaces/demo/files/new.txt', {
      body: 'x',
      headers: { 'If-None-Match': '*' },
    });
    expect(created.status).toBe(201);
    const unsupported = await h.request('PUT', url, {
      body: 'x',
      headers: { 'If-None-Match': '"2"' },
    });
    expect(await problemOf(unsupported)).toMatchObject({ status: 400, field: 'If-None-Match' });
  });

  it('applies If-Match to appends and deletes', async () => {
    const append = await h.request('POST', `${url}?append`, {
      body: '!',
      headers: { 'If-Match': '"1"' },
    });
    expect(append.status).toBe(412);
    expect((await h.request('DELETE', url, { headers: { 'If-Match': '"1"' } })).status).toBe(412);
    expect((await h.request('DELETE', url, { headers: { 'If-Match': '"2"' } })).status).toBe(200);
  });

  it('refuses an unquoted ETag with 400 rather than never matching', async () => {
    const res = await h.request('PUT', url, { body: 'x', headers: { 'If-Match': '2' } });
    expect(await problemOf(res)).toMatchObject({ status: 400, field: 'If-Match' });
  });
});

describe('conditional reads', () => {
  it('answers 304 to If-None-Match naming the head (weakly), 200 otherwise', async () => {
    const same = await get({ 'If-None-Match': '"2"' });
    expect(same.status).toBe(304);
    expect(same.headers.get('ETag')).toBe('"2"');
    expect(await same.text()).toBe('');
    expect((await get({ 'If-None-Match': 'W/"2"' })).status).toBe(304);
    expect((await get({ 'If-None-Match': '"1", "2"' })).status).toBe(304);
    expect((await get({ 'If-None-Match': '*' })).status).toBe(304);
    const changed = await get({ 'If-None-Match': '"1"' });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toBe(CONTENT);
  });

  it('answers 412 to If-Match on a read that does not match; If-None-Match follows If-Match', async () => {
    expect((await get({ 'If-Match': '"1"' })).status).toBe(412);
    expect((await get({ 'If-Match': '"2"', 'If-None-Match': '"2"' })).status).toBe(304);
  });

  it('compares validators with the version asked for', async () => {
    expect((await get({ 'If-None-Match': '"1"' }, `${url}?version=1`)).status).toBe(304);
    expect((await get({ 'If-None-Match': '"2"' }, `${url}?version=1`)).status).toBe(200);
  });

  it('uses dates when no ETag condition is given', async () => {
    const lastModified = (await h.request('HEAD', url)).headers.get('Last-Modified') ?? '';
    expect((await get({ 'If-Modified-Since': lastModified })).status).toBe(304);
    expect((await get({ 'If-Modified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT' })).status).toBe(200);
    expect((await get({ 'If-Unmodified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT' })).status).toBe(
      412,
    );
    // An invalid date is ignored, as RFC 9110 requires.
    expect((await get({ 'If-Modified-Since': 'yesterday' })).status).toBe(200);
  });
});

describe('ranges', () => {
  it('answers 206 with Content-Range for a closed, open or suffix range', async () => {
    const cases: [string, string, string][] = [
      ['bytes=2-5', '2345', 'bytes 2-5/20'],
      ['bytes=15-', 'fghij', 'bytes 15-19/20'],
      ['bytes=-3', 'hij', 'bytes 17-19/20'],
      ['bytes=18-100', 'ij', 'bytes 18-19/20'],
      ['bytes=-50', CONTENT, 'bytes 0-19/20'],
    ];
    for (const [range, body, contentRange] of cases) {
      const res = await get({ Range: range });
      expect(res.status, range).toBe(206);
      expect(res.headers.get('Content-Range'), range).toBe(contentRange);
      expect(res.headers.get('Content-Length'), range).toBe(String(body.length));
      expect(await res.text(), range).toBe(body);
    }
  });

  it('answers 416 with Content-Range: bytes */size when unsatisfiable', async () => {
    for (const range of ['bytes=20-', 'bytes=25-30', 'bytes=-0']) {
      const res = await get({ Range: range });
      expect(res.status, range).toBe(416);
      expect(res.headers.get('Content-Range')).toBe('bytes */20');
      expect(await problemOf(res)).toMatchObject({ reason: 'range_not_satisfiable' });
    }
  });

  it('sends the whole file for ranges it may ignore: invalid, multiple, other units', async () => {
    for (const range of ['bytes=5-2', 'bytes=0-1,4-5', 'items=0-1', 'bytes=abc']) {
      const res = await get({ Range: range });
      expect(res.status, range).toBe(200);
      expect(await res.text()).toBe(CONTENT);
    }
  });

  it('honours If-Range only while it names the current version', async () => {
    expect((await get({ Range: 'bytes=0-1', 'If-Range': '"2"' })).status).toBe(206);
    const stale = await get({ Range: 'bytes=0-1', 'If-Range': '"1"' });
    expect(stale.status).toBe(200);
    expect(await stale.text()).toBe(CONTENT);
  });

  it('ranges an old version', async () => {
    const res = await get({ Range: 'bytes=1-3' }, `${url}?version=1`);
    expect(res.status).toBe(206);
    expect(await res.text()).toBe('irs');
    expect(res.headers.get('Content-Range')).toBe('bytes 1-3/5');
  });
});
