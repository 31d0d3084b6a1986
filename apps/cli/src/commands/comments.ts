/**
 * `satchel comment …`: the review loop at a terminal — list threads (anchors recomputed against
 * the head), comment on lines, reply, resolve or reopen. `satchel share …`: read-only links for
 * people without an account.
 */
import type { CommentThread } from '@satchel/core/schemas';
import { type Command, InvalidArgumentError } from 'commander';
import { type Context, positiveInt } from '../context.js';
import { examples, shortTime, table } from '../format.js';

interface LsFlags {
  readonly path?: string;
  readonly status?: 'open' | 'resolved' | 'all';
  readonly limit?: number;
  readonly cursor?: string;
}

interface AddFlags {
  readonly lines: { startLine: number; endLine: number };
  readonly version?: number;
}

/** Commander parser: `3-5` or `7` as 1-based inclusive lines; exit 2 on anything else. */
function lineRange(value: string): { startLine: number; endLine: number } {
  const match = /^(\d+)(?:-(\d+))?$/.exec(value.trim());
  if (!match?.[1]) throw new InvalidArgumentError('takes N or N-M (1-based lines)');
  const startLine = Number(match[1]);
  return { startLine, endLine: match[2] === undefined ? startLine : Number(match[2]) };
}

function threadLines(t: CommentThread): string[] {
  const where = t.current
    ? `L${t.current.startLine}-${t.current.endLine}`
    : `outdated (was L${t.anchor.startLine}-${t.anchor.endLine}@${t.anchor.version})`;
  const state = t.resolved ? `resolved by ${t.resolvedBy}` : 'open';
  return [
    `${t.id}  ${t.path} ${where}  [${state}]  ${t.author}, ${shortTime(t.createdAt)}`,
    `  ${t.body}`,
    ...t.replies.map((r) => `  ↳ ${r.author}: ${r.body}`),
  ];
}

export function registerCommentCommands(program: Command, ctx: Context): void {
  const comment = program
    .command('comment')
    .description('review comments on lines of files: threads that follow the lines as files change')
    .summary('list, add, reply to and resolve comments');
  examples(comment, [
    'satchel comment ls --status open',
    'satchel comment add /report.md --lines 3-5 "cite a source"',
    'satchel comment resolve cm_1a2b3c',
  ]);

  const ls = comment
    .command('ls')
    .alias('list')
    .description('threads, newest first: id, path and lines now (or outdated), state, author')
    .option('--path <path>', 'only threads on this file')
    .option('--status <status>', 'open, resolved or all (default all)')
    .option('--limit <n>', 'at most N threads (default 50, max 200)', positiveInt)
    .option('--cursor <cursor>', 'continue a listing where the previous page ended')
    .action(async (flags: LsFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const page = await (await run.satchel()).listComments(run.workspace(), {
        path: flags.path,
        status: flags.status,
        limit: flags.limit,
        cursor: flags.cursor,
      });
      if (run.json) {
        run.printJson(page);
        return;
      }
      run.lines(page.items.flatMap(threadLines));
      if (page.items.length === 0 && flags.cursor === undefined) run.note('no comments');
      run.more(page.nextCursor, 'more threads');
    });
  examples(ls, ['satchel comment ls --path /report.md', 'satchel comment ls --status open --json']);

  const add = comment
    .command('add')
    .description('start a thread on lines of a file (of its head, or of --version)')
    .argument('<path>', 'the file')
    .argument('<body>', 'the comment')
    .requiredOption('--lines <n-m>', 'lines, 1-based and inclusive: 3-5, or 7', lineRange)
    .option('--version <seq>', 'the version the lines are of (default the head)', positiveInt)
    .action(async (path: string, body: string, flags: AddFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const created = await (await run.satchel()).addComment(run.workspace(), {
        ...run.call(),
        path,
        body,
        ...flags.lines,
        version: flags.version,
      });
      if (run.json) run.printJson(created);
      else run.out(`comment ${created.id} on ${created.path}`);
    });
  examples(add, ['satchel comment add /report.md --lines 3-5 "cite a source"']);

  const reply = comment
    .command('reply')
    .description('reply to a thread (any comment of it)')
    .argument('<id>', 'a comment id (cm_…)')
    .argument('<body>', 'the reply')
    .action(async (id: string, body: string, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const created = await (await run.satchel()).addComment(run.workspace(), {
        ...run.call(),
        parentId: id,
        body,
      });
      if (run.json) run.printJson(created);
      else run.out(`reply ${created.id} in thread ${created.threadId}`);
    });
  examples(reply, ['satchel comment reply cm_1a2b3c "fixed in the new version"']);

  const resolve = comment
    .command('resolve')
    .description('resolve a thread (its author or an editor may); --reopen opens it again')
    .argument('<id>', 'a comment id (cm_…)')
    .option('--reopen', 'open the thread again')
    .action(async (id: string, flags: { reopen?: boolean }, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const thread = await (await run.satchel()).resolveComment(run.workspace(), id, {
        ...run.call(),
        resolved: flags.reopen !== true,
      });
      if (run.json) run.printJson(thread);
      else run.out(`thread ${thread.id} ${thread.resolved ? 'resolved' : 'reopened'}`);
    });
  examples(resolve, [
    'satchel comment resolve cm_1a2b3c',
    'satchel comment resolve cm_1a2b3c --reopen',
  ]);
}

interface ShareFlags {
  readonly expires?: number;
  readonly passwordStdin?: boolean;
  readonly maxDownloads?: number;
}

/** The first line of a stream (a password piped in), without its line ending. */
async function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const piece of stream) {
    text += piece.toString();
    if (text.includes('\n') || text.length > 1000) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

export function registerShareCommands(program: Command, ctx: Context): void {
  const share = program
    .command('share')
    .description('read-only, expiring links to a file or folder for people without an account')
    .summary('create, list and revoke share links');
  examples(share, ['satchel share create /out/report.pdf --expires 86400', 'satchel share ls']);

  const create = share
    .command('create')
    .description('create a link (editors and owners); its URL is printed once')
    .argument('<path>', 'a file, or a folder shared with everything under it')
    .option('--expires <seconds>', 'lifetime (default 7 days, at most 90 days)', positiveInt)
    .option('--max-downloads <n>', 'file downloads allowed through the link', positiveInt)
    .option('--password-stdin', 'read a password from stdin (first line); visitors must give it')
    .action(async (path: string, flags: ShareFlags, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const password = flags.passwordStdin ? await firstLine(run.io.stdin) : undefined;
      const link = await (await run.satchel()).createShareLink(run.workspace(), {
        ...run.call(),
        path,
        expiresIn: flags.expires,
        maxDownloads: flags.maxDownloads,
        password,
      });
      if (run.json) run.printJson(link);
      else run.out(`${link.url}\n(${link.id}, ${link.kind}, expires ${link.expiresAt})`);
    });
  examples(create, [
    'satchel share create /out --expires 3600',
    'pass show client-link | satchel share create /report.md --password-stdin --max-downloads 5',
  ]);

  const ls = share
    .command('ls')
    .alias('list')
    .description('links of the workspace, newest first (never their tokens)')
    .option('--limit <n>', 'at most N links (default 100)', positiveInt)
    .option('--cursor <cursor>', 'continue a listing where the previous page ended')
    .action(async (flags: { limit?: number; cursor?: string }, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const page = await (await run.satchel()).listShareLinks(run.workspace(), flags);
      if (run.json) {
        run.printJson(page);
        return;
      }
      const rows = page.items.map((l) => [
        l.id,
        l.path,
        l.state,
        `${l.downloads}${l.maxDownloads === null ? '' : `/${l.maxDownloads}`}`,
        shortTime(l.expiresAt),
        l.createdBy,
      ]);
      run.lines(table(rows, ['left', 'left', 'left', 'right', 'left', 'left']));
      run.more(page.nextCursor, 'more links');
    });
  examples(ls, ['satchel share ls --json']);

  const revoke = share
    .command('revoke')
    .description('revoke a link at once (its creator or an owner)')
    .argument('<id>', 'the link id (shr_…)')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const run = ctx.invocation(cmd);
      const link = await (await run.satchel()).revokeShareLink(run.workspace(), id);
      if (run.json) run.printJson(link);
      else run.out(`revoked ${link.id}`);
    });
  examples(revoke, ['satchel share revoke shr_0123456789abcdef']);
}
