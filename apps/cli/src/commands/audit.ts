/** The tamper-evident audit log: `audit` (list), `audit --verify`, `audit --export`. */
import type { AuditEntryOut } from '@satchel/core';
import { type Command, Option } from 'commander';
import { type Context, copyTo, type Invocation, positiveInt } from '../context.js';
import { EXIT_DAMAGED } from '../errors.js';
import { examples, shortTime, table } from '../format.js';

interface AuditFlags {
  readonly limit?: number;
  readonly cursor?: string;
  readonly verify?: boolean;
  readonly export?: boolean;
  readonly server?: boolean;
}

function outcome(entry: AuditEntryOut): string {
  return entry.code === null ? entry.outcome : `${entry.outcome} ${entry.code}`;
}

function auditRow(entry: AuditEntryOut): string[] {
  return [
    String(entry.idx),
    shortTime(entry.time),
    entry.session === null ? entry.actor : `${entry.actor} [${entry.session}]`,
    entry.action,
    entry.workspace ?? '-',
    entry.path === null ? '-' : entry.seq === null ? entry.path : `${entry.path}@${entry.seq}`,
    outcome(entry),
  ];
}

async function verify(run: Invocation): Promise<void> {
  const result = await (await run.satchel()).verifyAudit();
  if (!result.ok) run.exitCode = EXIT_DAMAGED;
  if (run.json) {
    run.printJson(result);
    return;
  }
  run.out(
    result.ok
      ? `audit log ok: ${result.entries} entries`
      : `audit log BROKEN at entry ${result.index ?? '?'}: ${result.reason ?? 'unknown reason'}`,
  );
}

export function registerAuditCommands(program: Command, ctx: Context): void {
  const audit = program
    .command('audit')
    .description(
      'list the audit log, oldest first: idx, time (UTC), actor [session], action, workspace, ' +
        'path@seq, outcome. With a workspace (-w or SATCHEL_WORKSPACE): its entries (owners); ' +
        'without: all of them (admin); --server: only the server-level log (refused keys, ' +
        'rate-limited calls, calls with no workspace; admin). --verify recomputes the hash chain (exit 8 if broken); ' +
        '--export prints the whole log as JSON lines.',
    )
    .summary('list, verify or export the audit log')
    .option('--limit <n>', 'at most N entries (default 100, max 1000)', positiveInt)
    .option('--cursor <cursor>', 'continue a listing where the previous page ended')
    .option('--server', 'only entries with no workspace: refused keys, rate-limited calls (admin)')
    .addOption(
      new Option('--verify', 'check the whole hash chain and its checkpoint (admin)').conflicts([
        'limit',
        'cursor',
        'export',
      ]),
    )
    .addOption(
      new Option('--export', 'print every entry as one JSON line, streamed (admin)').conflicts([
        'limit',
        'cursor',
      ]),
    )
    .action(async (flags: AuditFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      if (flags.verify) {
        await verify(run);
        return;
      }
      const satchel = await run.satchel();
      if (flags.export) {
        await copyTo(satchel.exportAudit(), run.io.stdout);
        return;
      }
      // SATCHEL_WORKSPACE is a default, so --server overrides it; an explicit -w does not.
      const workspace = flags.server
        ? run.globals.workspace
        : (run.globals.workspace ?? ctx.env.workspace);
      const page = await satchel.listAudit({
        workspace,
        server: flags.server,
        limit: flags.limit,
        cursor: flags.cursor,
      });
      if (run.json) {
        run.printJson(page);
        return;
      }
      run.lines(
        table(page.items.map(auditRow), ['right', 'left', 'left', 'left', 'left', 'left', 'left']),
      );
      run.more(page.nextCursor, 'more entries');
    });
  examples(audit, [
    'satchel audit -w demo --limit 20',
    'satchel audit --server --limit 50',
    'satchel audit --verify',
    'satchel audit --export > audit.jsonl',
  ]);
}
