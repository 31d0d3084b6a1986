/** `satchel login-link`: a one-time sign-in URL for the web app (docs/web.md). */
import type { Command } from 'commander';
import { type Context, durationSeconds } from '../context.js';
import { examples, shortTime } from '../format.js';

interface LoginLinkFlags {
  readonly principal?: string;
  readonly expiresIn?: number;
  readonly baseUrl?: string;
}

/**
 * The link as a full URL: the server's answer when it knows its public URL, else below
 * `--base-url`, the server talked to (SATCHEL_URL), or where `satchel serve` listens by default.
 */
function absolute(url: string, flags: LoginLinkFlags, ctx: Context): string {
  if (/^https?:\/\//.test(url)) return url;
  const base = flags.baseUrl ?? ctx.env.url ?? `http://${ctx.env.host}:${ctx.env.port}`;
  return `${base.replace(/\/+$/, '')}${url}`;
}

export function registerLoginLinkCommand(program: Command, ctx: Context): void {
  const command = program
    .command('login-link')
    .description(
      'print a one-time sign-in URL for the web app that `satchel serve` serves at /: opening ' +
        'it signs that user in with a browser session (7 days, revocable from the Sessions ' +
        'page). Admins create links for any user; a user for themself, with a key that is not ' +
        'narrowed. Agents use API keys instead. The URL is a secret until it is used.',
    )
    .summary('print a one-time sign-in URL for the web app')
    .option('--principal <name>', 'the user who signs in (default: yourself)')
    .option(
      '--expires-in <duration>',
      'e.g. 5m or 1h: how long the link stays usable (default 15m, from 1m to 1h)',
      durationSeconds,
    )
    .option(
      '--base-url <url>',
      'the web app’s address, when the server does not know its public URL ' +
        '(default: SATCHEL_PUBLIC_URL on the server, else SATCHEL_URL, else http://SATCHEL_HOST:SATCHEL_PORT)',
    )
    .action(async (flags: LoginLinkFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const link = await (await run.satchel()).createLoginLink({
        ...(flags.principal === undefined ? {} : { principal: flags.principal }),
        ...(flags.expiresIn === undefined ? {} : { expiresInSeconds: flags.expiresIn }),
      });
      const url = absolute(link.url, flags, ctx);
      if (run.json) run.printJson({ ...link, url });
      else run.out(url);
      run.note(
        `signs in ${link.principal} once, until ${shortTime(link.expiresAt)}; ` +
          'do not share it: whoever opens it first is signed in',
      );
    });
  examples(command, [
    'satchel login-link --principal alice',
    'satchel login-link --principal alice --expires-in 5m --base-url https://satchel.example.com',
    'SATCHEL_URL=https://satchel.example.com SATCHEL_TOKEN=satchel_… satchel login-link --json',
  ]);
}
