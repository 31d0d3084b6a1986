/** Webhook subscriptions of a workspace (owners): `webhooks add|ls|rm|enable|disable|deliveries`. */

import { VERSION_OPS } from '@satchel/client/schemas/choices.js';
import type { Webhook, WebhookDelivery } from '@satchel/core';
import { type Command, InvalidArgumentError } from 'commander';
import { type Context, positiveInt } from '../context.js';
import { examples, shortTime, table } from '../format.js';

type Op = (typeof VERSION_OPS)[number];

/** Commander parser for `--events write,delete`: change types, exit 2 on an unknown one. */
function eventList(value: string): Op[] {
  const events = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const known: readonly string[] = VERSION_OPS;
  const unknown = events.find((e) => !known.includes(e));
  if (unknown !== undefined || events.length === 0) {
    throw new InvalidArgumentError(`use a comma-separated list of ${known.join(', ')}`);
  }
  return events as Op[];
}

function status(hook: Webhook): string {
  return hook.enabled ? 'enabled' : `disabled (${hook.disabledReason ?? 'by an owner'})`;
}

function webhookRow(hook: Webhook): string[] {
  return [
    hook.id,
    hook.url,
    hook.events.length === VERSION_OPS.length ? 'all events' : hook.events.join(','),
    hook.path ?? '/**',
    status(hook),
  ];
}

function deliveryRow(d: WebhookDelivery): string[] {
  const outcome =
    d.status === 'delivered'
      ? `delivered ${shortTime(d.deliveredAt ?? d.createdAt)}`
      : d.status === 'failed'
        ? `retry ${shortTime(d.nextAttemptAt ?? d.createdAt)}`
        : d.status;
  return [
    d.id,
    String(d.eventSeq),
    d.eventType,
    d.path,
    outcome,
    `${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`,
    d.lastError ?? '',
  ];
}

export function registerWebhookCommands(program: Command, ctx: Context): void {
  const webhooks = program
    .command('webhooks')
    .description(
      'subscribe URLs to the changes of the selected workspace (-w): signed POSTs per the ' +
        'Standard Webhooks spec, retried with backoff, delivered by `satchel serve` (owners)',
    )
    .summary('manage webhooks');
  examples(webhooks, [
    'satchel webhooks add https://ci.example.com/satchel -w demo --events write,delete',
    'satchel webhooks ls -w demo',
    'satchel webhooks deliveries wh_3f2a9c0d1e2b4a5c -w demo',
  ]);

  const add = webhooks
    .command('add')
    .description(
      'subscribe URL to changes from now on and print its signing secret once (store it: it ' +
        'cannot be shown again). URLs that resolve to loopback, private or link-local ' +
        'addresses are refused unless the server allows them (serve --webhook-allow)',
    )
    .argument('<url>', 'http(s) endpoint that receives the POSTs')
    .option(
      '--events <list>',
      'only these change types, e.g. write,delete (default all)',
      eventList,
    )
    .option('--path <glob>', 'only changes whose path matches, e.g. "/reports/**" or "**/*.md"')
    .option('--description <text>', 'what the subscription is for')
    .action(async (url: string, flags: AddFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const created = await (await run.satchel()).createWebhook(ws, {
        url,
        events: flags.events,
        path: flags.path,
        description: flags.description,
      });
      if (run.json) run.printJson(created);
      else run.out(created.secret);
      run.note(
        `created webhook ${created.id} for ${created.url} in ${ws}; the line above is its ` +
          'signing secret: store it now, it cannot be shown again',
      );
    });
  examples(add, [
    'satchel webhooks add https://ci.example.com/satchel -w demo > hook.secret',
    'satchel webhooks add https://hooks.example.com/in --events write,delete --path "/out/**"',
  ]);

  const ls = webhooks
    .command('ls')
    .alias('list')
    .description('list the workspace’s webhooks: id, URL, events, path glob, status')
    .action(async (_flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const items = await (await run.satchel()).listWebhooks(run.workspace());
      if (run.json) {
        run.printJson({ items });
        return;
      }
      run.lines(table(items.map(webhookRow)));
    });
  examples(ls, ['satchel webhooks ls -w demo', 'satchel webhooks ls --json']);

  const rm = webhooks
    .command('rm')
    .alias('remove')
    .description('delete a webhook with its queue and delivery log')
    .argument('<id>', 'webhook id (see `satchel webhooks ls`)')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      await (await run.satchel()).deleteWebhook(ws, id);
      if (run.json) run.printJson({ removed: id, workspace: ws });
      else run.out(`removed webhook ${id} from ${ws}`);
    });
  examples(rm, ['satchel webhooks rm wh_3f2a9c0d1e2b4a5c -w demo']);

  for (const enabled of [true, false]) {
    const name = enabled ? 'enable' : 'disable';
    const toggle = webhooks
      .command(name)
      .description(
        enabled
          ? 're-enable a webhook (after a 410 Gone, or a disable); it resumes from now on'
          : 'stop delivering to a webhook; queued deliveries are dropped',
      )
      .argument('<id>', 'webhook id')
      .action(async (id: string, _flags: unknown, cmd: Command) => {
        const run = ctx.invocation(cmd);
        const hook = await (await run.satchel()).updateWebhook(run.workspace(), id, { enabled });
        if (run.json) run.printJson(hook);
        else run.out(`webhook ${hook.id} ${status(hook)}`);
      });
    examples(toggle, [`satchel webhooks ${name} wh_3f2a9c0d1e2b4a5c -w demo`]);
  }

  const deliveries = webhooks
    .command('deliveries')
    .description(
      'the delivery log of a webhook, newest event first: delivery id (the webhook-id ' +
        'header), seq, event, path, outcome, attempts, last error',
    )
    .argument('<id>', 'webhook id')
    .option('--limit <n>', 'at most N deliveries (default 100, max 1000)', positiveInt)
    .option('--cursor <cursor>', 'continue a listing where the previous page ended')
    .action(async (id: string, flags: PageFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const page = await (await run.satchel()).listWebhookDeliveries(run.workspace(), id, {
        limit: flags.limit,
        cursor: flags.cursor,
      });
      if (run.json) {
        run.printJson(page);
        return;
      }
      run.lines(table(page.items.map(deliveryRow)));
      run.more(page.nextCursor, 'more deliveries');
    });
  examples(deliveries, [
    'satchel webhooks deliveries wh_3f2a9c0d1e2b4a5c -w demo',
    'satchel webhooks deliveries wh_3f2a9c0d1e2b4a5c --json --limit 10',
  ]);
}

interface AddFlags {
  readonly events?: Op[];
  readonly path?: string;
  readonly description?: string;
}

interface PageFlags {
  readonly limit?: number;
  readonly cursor?: string;
}
