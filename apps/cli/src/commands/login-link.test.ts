/** `satchel login-link` on a real data directory: the URL signs alice in once. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REMOTE_TARGET, TestCli } from '../testing.js';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel login-link', () => {
  it('prints a one-time sign-in URL for a user; agents and unknown names are refused', async () => {
    await cli.run(['principals', 'create', 'alice', '--kind', 'user']);
    const printed = await cli.run([
      'login-link',
      '--principal',
      'alice',
      '--base-url',
      'https://s.example',
    ]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^https:\/\/s\.example\/login\?token=login_[\w-]{43}\n$/);
    expect(printed.stderr).toMatch(/signs in alice once, until /);

    const json = await cli.run([
      'login-link',
      '--principal',
      'alice',
      '--expires-in',
      '5m',
      '--json',
    ]);
    const link = JSON.parse(json.stdout) as { principal: string; url: string; expiresAt: string };
    expect(link.principal).toBe('alice');
    if (!REMOTE_TARGET) expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/login\?token=/);

    await cli.run(['principals', 'create', 'bot']);
    const agent = await cli.run(['login-link', '--principal', 'bot']);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toMatch(/bot is an agent/);
    const unknown = await cli.run(['login-link', '--principal', 'nobody']);
    expect(unknown.code).toBe(3);
  });
});
