/** Leases on paths: `lock` (acquire or renew), `unlock` (release or break), `locks`. */
import type { Lock } from '@satchel/core';
import type { Command } from 'commander';
import { type Context, durationSeconds } from '../context.js';
import { usageError } from '../errors.js';
import { examples, humanDuration, shortTime, table } from '../format.js';

interface LockFlags {
  readonly ttl?: number;
  readonly tree?: boolean;
  readonly shared?: boolean;
  readonly wait?: number;
  readonly renew?: string;
}

interface UnlockFlags {
  readonly break?: boolean;
}

function locked(lock: Lock): string {
  return `${lock.path} (token ${lock.token}, id ${lock.id}, expires ${shortTime(lock.expiresAt)})`;
}

function lockRow(lock: Lock, now: number): string[] {
  const left = Date.parse(lock.expiresAt) - now;
  return [
    lock.path,
    lock.scope,
    lock.mode,
    lock.holder,
    String(lock.token),
    humanDuration(left),
    lock.id,
  ];
}

export function registerLockCommands(program: Command, ctx: Context): void {
  const lock = program
    .command('lock')
    .description(
      'lock a file (or with --tree a directory and everything beneath) for a while; writes by ' +
        'others fail with LOCKED until it is released or expires. Prints the fencing token to ' +
        'pass to your writes as --lock-token. With --renew ID, extend a lock you hold instead.',
    )
    .summary('lock a path, or renew a lock')
    .argument('[path]', 'file or directory in the workspace')
    .option(
      '--ttl <duration>',
      'lease length: seconds, or 90s, 15m, 1h (default 60s, max 1h)',
      durationSeconds,
    )
    .option('--tree', 'lock the path and everything beneath it')
    .option('--shared', 'shared: others may hold shared locks too, but nobody an exclusive one')
    .option(
      '--wait <duration>',
      'wait up to this long for a conflicting lock (max 5m)',
      durationSeconds,
    )
    .option('--renew <lock-id>', 'extend the lease of a lock you hold (with --ttl) instead')
    .action(async (path: string | undefined, flags: LockFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      if (flags.renew !== undefined) {
        if (path !== undefined || flags.tree || flags.shared || flags.wait !== undefined) {
          throw usageError(
            '--renew takes a lock id and only --ttl',
            'e.g. `satchel lock --renew LOCK_ID --ttl 5m`',
          );
        }
        const renewed = await (await run.satchel()).renewLock(ws, flags.renew, {
          ...run.call(),
          ttlSeconds: flags.ttl,
        });
        if (run.json) run.printJson(renewed);
        else run.out(`renewed ${locked(renewed)}`);
        return;
      }
      if (path === undefined) {
        throw usageError('lock needs a PATH (or --renew LOCK_ID)', 'e.g. `satchel lock /a.md`');
      }
      const acquired = await (await run.satchel()).acquireLock(ws, {
        ...run.call(),
        path,
        scope: flags.tree ? 'tree' : 'file',
        mode: flags.shared ? 'shared' : 'exclusive',
        ttlSeconds: flags.ttl,
        waitSeconds: flags.wait,
      });
      if (run.json) {
        run.printJson(acquired);
        return;
      }
      run.out(`locked ${locked(acquired)}`);
      run.note(
        `write with --lock-token ${acquired.token}; release with \`satchel unlock ${acquired.id}\``,
      );
    });
  examples(lock, [
    'satchel lock /state.json --ttl 5m',
    'satchel lock /reports --tree --wait 30s --json',
    'satchel lock --renew 0b6e… --ttl 10m',
  ]);

  const unlock = program
    .command('unlock')
    .description(
      'release a lock you hold; with --break, release anyone’s (workspace owners; audited)',
    )
    .summary('release a lock')
    .argument('<lock-id>', 'id printed by `satchel lock` or `satchel locks`')
    .option('--break', 'break another holder’s lock (owners only)')
    .action(async (lockId: string, flags: UnlockFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const satchel = await run.satchel();
      if (flags.break) {
        const broken = await satchel.breakLock(ws, lockId, run.call());
        if (run.json) run.printJson(broken);
        else run.out(`broke ${broken.holder}’s lock on ${broken.path} (id ${broken.id})`);
        return;
      }
      await satchel.releaseLock(ws, lockId, run.call());
      if (run.json) run.printJson({ released: lockId });
      else run.out(`unlocked ${lockId}`);
    });
  examples(unlock, ['satchel unlock 0b6e…', 'satchel unlock 0b6e… --break']);

  const locks = program
    .command('locks')
    .description(
      'list live locks (on PATH: those covering it or beneath it): path, scope, mode, holder, ' +
        'token, expires in, id',
    )
    .summary('list live locks')
    .argument('[path]', 'only locks on this path, its parents (tree locks) or beneath it')
    .action(async (path: string | undefined, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const ws = run.workspace();
      const items = await (await run.satchel()).listLocks(ws, path === undefined ? {} : { path });
      if (run.json) {
        run.printJson({ items });
        return;
      }
      const now = Date.now();
      run.lines(
        table(
          items.map((l) => lockRow(l, now)),
          ['left', 'left', 'left', 'left', 'right', 'right', 'left'],
        ),
      );
      if (items.length === 0) run.note('no live locks');
    });
  examples(locks, ['satchel locks', 'satchel locks /reports --json']);
}
