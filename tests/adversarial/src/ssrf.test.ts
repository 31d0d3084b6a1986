/**
 * SSRF at webhook creation: an owner may point a webhook at any URL, so every form of an
 * internal address is refused when the webhook is created (400 INVALID_INPUT), before anything
 * is queued. No network is needed: IP literals are judged without a lookup, and `localhost`
 * resolves from /etc/hosts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './support.js';

const INTERNAL = [
  'http://127.0.0.1/hook',
  'http://127.1/hook',
  'http://0.0.0.0/hook',
  'http://0/hook',
  'http://2130706433/hook', // 127.0.0.1 as one decimal number
  'http://0x7f000001/hook', // … as hex
  'http://017700000001/hook', // … as octal
  'http://0177.0.0.1/hook',
  'http://10.0.0.1/hook',
  'http://172.16.0.1/hook',
  'http://192.168.1.1/hook',
  'http://100.64.0.1/hook', // carrier-grade NAT
  'http://169.254.169.254/latest/meta-data/', // cloud metadata
  'http://169.254.1.1/hook',
  'http://224.0.0.1/hook',
  'http://255.255.255.255/hook',
  'http://[::1]/hook',
  'http://[::]/hook',
  'http://[::127.0.0.1]/hook', // IPv4-compatible loopback
  'http://[::ffff:127.0.0.1]/hook', // IPv4-mapped
  'http://[::ffff:7f00:1]/hook',
  'http://[::ffff:169.254.169.254]/hook',
  'http://[64:ff9b::a9fe:a9fe]/hook', // NAT64 of 169.254.169.254
  'http://[2002:7f00:1::]/hook', // 6to4 of 127.0.0.1
  'http://[fe80::1]/hook',
  'http://[fc00::1]/hook',
  'http://[fd00:ec2::254]/hook', // AWS metadata over IPv6
  'http://localhost/hook',
  'http://LOCALHOST./hook',
  'http://user:pass@93.184.215.14/hook', // credentials in the URL
  'file:///etc/passwd',
  'gopher://127.0.0.1:25/',
  'ftp://93.184.215.14/',
];

let world: World;
beforeAll(async () => {
  world = await createWorld();
});
afterAll(async () => {
  await world.close();
});

const create = (url: string) =>
  world.request('POST', '/v1/workspaces/demo/webhooks', {
    key: world.keys.owner,
    body: { url, events: ['write'] },
  });

describe('webhook URLs that reach inside', () => {
  it('refuses every internal address form at creation with 400 INVALID_INPUT', async () => {
    const accepted: string[] = [];
    for (const url of INTERNAL) {
      const res = await create(url);
      const body = (await res.json()) as { code?: string; field?: string };
      // Refused for its URL, not for some other argument.
      if (res.status !== 400 || body.code !== 'INVALID_INPUT' || body.field !== 'url') {
        accepted.push(`${url}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      }
    }
    expect(accepted).toEqual([]);
    const list = await world.request('GET', '/v1/workspaces/demo/webhooks', {
      key: world.keys.owner,
    });
    expect(((await list.json()) as { items: unknown[] }).items).toEqual([]);
  });

  it('accepts a public address (the guard is not a blanket refusal)', async () => {
    const res = await create('https://93.184.215.14/hook');
    expect(res.status).toBe(201);
  });

  it('refuses to move an existing webhook inside afterwards', async () => {
    const made = await create('https://93.184.215.15/hook');
    const { id } = (await made.json()) as { id: string };
    const res = await world.request('PATCH', `/v1/workspaces/demo/webhooks/${id}`, {
      key: world.keys.owner,
      body: { url: 'http://169.254.169.254/latest/meta-data/' },
    });
    expect(res.status).toBe(400);
  });
});
