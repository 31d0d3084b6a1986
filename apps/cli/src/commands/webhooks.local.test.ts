/** `SATCHEL_WEBHOOK_ALLOW` on a local data directory (local only: a server has its own list). */
import type { CreatedWebhook } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
  await cli.run(['ws', 'create', 'w']);
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel webhooks add on a data directory', () => {
  it('SATCHEL_WEBHOOK_ALLOW lets it add a private URL', async () => {
    const env = { SATCHEL_WEBHOOK_ALLOW: '127.0.0.1, 10.0.0.0/8' };
    const added = await cli.in('w', ['webhooks', 'add', 'http://127.0.0.1:9/in', '--json'], {
      env,
    });
    expect(added.code).toBe(0);
    expect((JSON.parse(added.stdout) as CreatedWebhook).url).toBe('http://127.0.0.1:9/in');
    const without = await cli.in('w', ['webhooks', 'add', 'http://127.0.0.1:9/in']);
    expect(without.code).toBe(2);
  });
});
