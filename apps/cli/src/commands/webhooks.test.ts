/** `satchel webhooks` on a real data directory (and, in the remote project, a live server). */
import type { Webhook } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

// A public address: accepted without an allow-list; nothing is sent to it (no dispatcher runs).
const PUBLIC = 'https://93.184.215.14/hook';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
  await cli.run(['ws', 'create', 'w']);
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel webhooks', () => {
  it('adds (secret once), lists, disables, enables, shows deliveries and removes', async () => {
    const added = await cli.in('w', [
      'webhooks',
      'add',
      PUBLIC,
      '--events',
      'write,delete',
      '--path',
      '/out/**',
    ]);
    expect(added.code).toBe(0);
    const secret = added.stdout.trim();
    expect(secret).toMatch(/^whsec_\S{32}$/);
    const id = /created webhook (wh_[0-9a-f]{16}) /.exec(added.stderr)?.[1] ?? '';
    expect(added.stderr).toBe(
      `created webhook ${id} for ${PUBLIC} in w; the line above is its signing secret: ` +
        'store it now, it cannot be shown again\n',
    );

    const ls = await cli.in('w', ['webhooks', 'ls']);
    expect(ls.stdout).toBe(`${id}  ${PUBLIC}  write,delete  /out/**  enabled\n`);
    expect(ls.stdout).not.toContain(secret);
    const json = JSON.parse((await cli.in('w', ['webhooks', 'ls', '--json'])).stdout) as {
      items: Webhook[];
    };
    expect(json.items).toMatchObject([{ id, url: PUBLIC, events: ['write', 'delete'] }]);
    expect(JSON.stringify(json)).not.toContain(secret);

    const disabled = await cli.in('w', ['webhooks', 'disable', id]);
    expect(disabled.stdout).toBe(`webhook ${id} disabled (disabled by admin)\n`);
    expect((await cli.in('w', ['webhooks', 'enable', id])).stdout).toBe(`webhook ${id} enabled\n`);

    const log = await cli.in('w', ['webhooks', 'deliveries', id]);
    expect(log).toMatchObject({ code: 0, stdout: '' });
    const logJson = await cli.in('w', ['webhooks', 'deliveries', id, '--json', '--limit', '5']);
    expect(JSON.parse(logJson.stdout)).toEqual({ items: [], nextCursor: null });

    const rm = await cli.in('w', ['webhooks', 'rm', id]);
    expect(rm.stdout).toBe(`removed webhook ${id} from w\n`);
    expect((await cli.in('w', ['webhooks', 'ls'])).stdout).toBe('');
    const gone = await cli.in('w', ['webhooks', 'rm', id]);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain(`webhook ${id} not found`);
  });

  it('refuses with one line: SSRF, bad events, non-owners', async () => {
    const ssrf = await cli.in('w', ['webhooks', 'add', 'http://169.254.169.254/latest']);
    expect(ssrf.code).toBe(2);
    expect(ssrf.stderr.split('\n')[0]).toBe(
      'satchel: refusing webhook URL http://169.254.169.254: 169.254.169.254 is a link-local ' +
        'address; only public addresses are allowed unless the server is started with ' +
        '--webhook-allow (INVALID_INPUT)',
    );
    const events = await cli.in('w', ['webhooks', 'add', PUBLIC, '--events', 'write,explode']);
    expect(events.code).toBe(2);

    const key = await cli.principal('ed');
    await cli.in('w', ['members', 'add', 'ed', 'editor']);
    const refused = await cli.in('w', ['webhooks', 'add', PUBLIC, '--as', key]);
    expect(refused.code).toBe(5);
    expect(refused.stderr.split('\n')[0]).toBe(
      'satchel: ed may not manage webhooks in w: that needs owner, and it is editor (FORBIDDEN)',
    );
    expect((await cli.in('w', ['webhooks', 'ls'])).stdout).toBe('');
  });
});
