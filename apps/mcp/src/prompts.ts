/**
 * Prompts: ready-made instructions a client offers its user for jobs that take several tools —
 * handing a workspace to a person, reviewing what one session changed. They only say which tools
 * to call; every decision stays with the tools (and core).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

function userText(text: string): GetPromptResult {
  return { messages: [{ role: 'user', content: { type: 'text', text } }] };
}

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'hand_over_workspace',
    {
      title: 'Hand a workspace to a person',
      description: 'Tidy a workspace, then offer its ownership to a person.',
      argsSchema: {
        workspace: z.string().describe('the workspace to hand over'),
        to: z.string().optional().describe('who may accept (omit: whoever gets the claim code)'),
      },
    },
    ({ workspace, to }) =>
      userText(
        [
          `Hand the Satchel workspace "${workspace}" over to ${to ?? 'a person'}.`,
          `1. Look at what is there: directory_tree (workspace "${workspace}") and list_locks; release your locks with unlock_file.`,
          '2. Write /README.md (write_file): what the workspace holds, where to start, what is unfinished.',
          `3. Call offer_transfer with workspace "${workspace}"${to === undefined ? '' : ` and to "${to}"`}.`,
          '4. Tell me the claim code and the expiry exactly as returned; the person accepts with accept_transfer (or `satchel transfer accept CODE`).',
        ].join('\n'),
      ),
  );

  server.registerPrompt(
    'review_session',
    {
      title: 'Review what a session changed',
      description: 'Summarise the changes one agent session made, from the audit log.',
      argsSchema: {
        workspace: z.string().describe('the workspace'),
        session: z.string().describe('the session label, as list_audit shows it'),
      },
    },
    ({ workspace, session }) =>
      userText(
        [
          `Review what session "${session}" changed in the Satchel workspace "${workspace}".`,
          `1. Page through list_audit (workspace "${workspace}", following nextCursor) and keep the entries whose session is "${session}" and that name a version (@N).`,
          '2. For each path it changed, diff_versions from the version before its first change to its last (list_versions shows them).',
          '3. Summarise per file what changed and why it matters; flag deletions and anything that looks unfinished.',
          '4. Change nothing. To undo a file, name the restore_version call (path and version) instead of running it.',
        ].join('\n'),
      ),
  );
}
