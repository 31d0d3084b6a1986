/** Who may act: `principals create|ls` (admin) and API keys, `keys create|ls|revoke`. */

import { PRINCIPAL_KINDS, ROLES } from '@satchel/client/schemas/choices.js';
import type { KeyInfo, Role } from '@satchel/core';
import { type Command, Option } from 'commander';
import { type Context, durationSeconds, positiveInt } from '../context.js';
import { examples, shortTime, table } from '../format.js';

interface KeyFlags {
  readonly principal?: string;
  readonly label?: string;
  readonly onlyWorkspace?: string[];
  readonly role?: Role;
  readonly pathPrefix?: string[];
  readonly readOnly?: boolean;
  readonly expiresIn?: number;
}

interface PageFlags {
  readonly limit?: number;
  readonly cursor?: string;
}

/** Repeatable options; no default, so help shows none and absence stays `undefined`. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `active`, `revoked 2025-…`, `expired 2025-…`, `expires 2025-…`. */
function keyStatus(key: KeyInfo, now: number): string {
  if (key.revokedAt !== null) return `revoked ${shortTime(key.revokedAt)}`;
  if (key.expiresAt === null) return 'active';
  return Date.parse(key.expiresAt) <= now
    ? `expired ${shortTime(key.expiresAt)}`
    : `expires ${shortTime(key.expiresAt)}`;
}

/** The key's narrowing in words: `workspaces demo; role viewer; paths /out; read-only`. */
export function keyScope(key: KeyInfo): string {
  const parts: string[] = [];
  if (key.workspaces !== null) parts.push(`workspaces ${key.workspaces.join(',')}`);
  if (key.role !== null) parts.push(`role ${key.role}`);
  if (key.pathPrefixes !== null) parts.push(`paths ${key.pathPrefixes.join(',')}`);
  if (key.readOnly) parts.push('read-only');
  return parts.length === 0 ? 'unrestricted' : parts.join('; ');
}

function keyRow(key: KeyInfo, now: number): string[] {
  const row = [key.id, key.principal, keyStatus(key, now), keyScope(key)];
  return key.label === null ? row : [...row, JSON.stringify(key.label)];
}

function registerPrincipalCommands(program: Command, ctx: Context): void {
  const principals = program
    .command('principals')
    .description('create and list principals: the users and agents keys and roles belong to')
    .summary('manage users and agents (admin)');
  examples(principals, ['satchel principals create alice --kind user', 'satchel principals ls']);

  const create = principals
    .command('create')
    .description('create a principal (admin); give it a key with `satchel keys create --principal`')
    .argument('<name>', 'unique name: a-z, 0-9, ".", "_", "@", "-"')
    .addOption(
      new Option('--kind <kind>', 'a person or a program')
        .choices(PRINCIPAL_KINDS)
        .default('agent'),
    )
    .action(async (name: string, flags: { readonly kind: 'user' | 'agent' }, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const created = await (await run.satchel()).createPrincipal({ name, kind: flags.kind });
      if (run.json) run.printJson(created);
      else run.out(`created principal ${created.name} (${created.kind})`);
    });
  examples(create, [
    'satchel principals create alice --kind user',
    'satchel principals create builder-bot',
  ]);

  const ls = principals
    .command('ls')
    .alias('list')
    .description('list principals (admin): name, kind, admin, created')
    .option('--limit <n>', 'at most N principals (default 100, max 1000)', positiveInt)
    .option('--cursor <cursor>', 'continue a listing where the previous page ended')
    .action(async (flags: PageFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const page = await (await run.satchel()).listPrincipals({
        limit: flags.limit,
        cursor: flags.cursor,
      });
      if (run.json) {
        run.printJson(page);
        return;
      }
      const rows = page.items.map((p) => [
        p.name,
        p.kind,
        p.admin ? 'admin' : '-',
        shortTime(p.createdAt),
      ]);
      run.lines(table(rows));
      run.more(page.nextCursor, 'more principals');
    });
  examples(ls, ['satchel principals ls', 'satchel principals ls --json']);
}

export function registerKeyCommands(program: Command, ctx: Context): void {
  registerPrincipalCommands(program, ctx);

  const keys = program
    .command('keys')
    .description('create, list and revoke API keys (for `satchel serve` clients and --as)')
    .summary('manage API keys');
  examples(keys, [
    'satchel keys create --principal alice',
    'satchel keys ls --all',
    'satchel keys revoke 3f2a9c0d1e2b4a5c',
  ]);

  const create = keys
    .command('create')
    .description(
      'create an API key and print it once on stdout (only its hash is stored); narrow it to ' +
        'workspaces, a role ceiling, path prefixes, read-only or an expiry. Admins create keys ' +
        'for anyone, others only for themselves and no wider than their own key.',
    )
    .option('--principal <name>', 'whose key (admins only; default: yourself)')
    .option('--label <text>', 'what the key is for, shown by `keys ls`')
    .option('--only-workspace <name>', 'usable only in this workspace (repeatable)', collect)
    .addOption(
      new Option(
        '--role <role>',
        'role ceiling: never more than this, whatever the membership',
      ).choices(ROLES),
    )
    .option('--path-prefix <path>', 'may change only beneath this path (repeatable)', collect)
    .option('--read-only', 'may only read')
    .option('--expires-in <duration>', 'expire after e.g. 3600s, 12h or 30d', durationSeconds)
    .action(async (flags: KeyFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const created = await (await run.satchel()).createKey({
        principal: flags.principal,
        label: flags.label,
        workspaces: flags.onlyWorkspace,
        role: flags.role,
        pathPrefixes: flags.pathPrefix,
        readOnly: flags.readOnly === true ? true : undefined,
        expiresInSeconds: flags.expiresIn,
      });
      if (run.json) run.printJson(created);
      else run.out(created.key);
      const { info } = created;
      run.note(
        `created key ${info.id} for ${info.principal} (${keyScope(info)}); ` +
          'store it now: it cannot be shown again',
      );
    });
  examples(create, [
    'satchel keys create --principal alice --label laptop > alice.key',
    'satchel keys create --principal builder-bot --only-workspace demo --path-prefix /out --expires-in 30d',
    'satchel keys create --read-only --role viewer --json',
  ]);

  const ls = keys
    .command('ls')
    .alias('list')
    .description(
      'list your keys (admins: --all for everyone’s): id, principal, status, scope, label',
    )
    .option('--all', 'every principal’s keys (admins)')
    .action(async (flags: { readonly all?: boolean }, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const items = await (await run.satchel()).listKeys({ all: flags.all === true });
      if (run.json) {
        run.printJson({ items });
        return;
      }
      const now = Date.now();
      run.lines(table(items.map((k) => keyRow(k, now))));
    });
  examples(ls, ['satchel keys ls', 'satchel keys ls --all --json']);

  const revoke = keys
    .command('revoke')
    .description('revoke a key at once: it no longer authenticates (yours; admins: anyone’s)')
    .argument('<id>', 'key id (the part after `satchel_`, see `satchel keys ls`)')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const revoked = await (await run.satchel()).revokeKey(id);
      if (run.json) run.printJson(revoked);
      else run.out(`revoked key ${revoked.id} of ${revoked.principal}`);
    });
  examples(revoke, ['satchel keys revoke 3f2a9c0d1e2b4a5c']);
}
