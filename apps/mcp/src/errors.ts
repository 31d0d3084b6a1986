/**
 * SatchelError → an `isError` tool result an agent can act on: the code, the message, and the
 * next step. Mapped here once; every tool goes through `toolError`. A domain failure is never a
 * protocol error.
 */

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type ErrorCode, toSatchelError } from '@satchel/core';

export interface ToolErrorContent {
  readonly code: ErrorCode;
  readonly message: string;
  /** What to do next, for a model. */
  readonly hint: string;
  readonly data: Readonly<Record<string, unknown>>;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

interface Candidate {
  readonly line: number;
  readonly text: string;
}

function candidatesOf(data: Readonly<Record<string, unknown>>): Candidate[] {
  const list = Array.isArray(data.candidates) ? data.candidates : [];
  return list.filter(
    (c): c is Candidate =>
      typeof c === 'object' &&
      c !== null &&
      typeof c.line === 'number' &&
      typeof c.text === 'string',
  );
}

function preconditionHint(data: Readonly<Record<string, unknown>>): string {
  const expected = data.expected;
  const actual = num(data.actual);
  if (expected === '*') {
    return `the file already exists (version ${actual ?? '?'}); read it first, then write with ifMatch ${actual ?? '<its version>'} to replace it`;
  }
  if (actual === undefined || data.actual === null) {
    return 'the file does not exist any more; re-check with get_file_info, and write without ifMatch to create it';
  }
  return `file changed since version ${num(expected) ?? expected}; re-read it and retry with ifMatch ${actual}`;
}

function lockedHint(data: Readonly<Record<string, unknown>>): string {
  if (data.reason === 'stale_token') {
    return 'your lock token is no longer live (the lock expired, was released or was broken): take a new lock with lock_file and retry with its token';
  }
  const holder = str(data.holder);
  const until = str(data.expiresAt);
  if (holder === undefined) {
    return 'an earlier lock request is waiting for this path; retry shortly, or call lock_file with waitSeconds to queue';
  }
  return `locked by ${holder} until ${until ?? 'its lease ends'} (lock ${str(data.lockId) ?? '?'}); retry after that, call lock_file with waitSeconds to wait for it, or pass lockToken if you hold the lock`;
}

function editHint(data: Readonly<Record<string, unknown>>): string | undefined {
  const matches = num(data.matches);
  if (matches === undefined) return undefined;
  const candidates = candidatesOf(data);
  const shown = candidates.map((c) => `  line ${c.line}: ${c.text}`).join('\n');
  if (matches === 0) {
    return candidates.length === 0
      ? 'oldText must match the file exactly (whitespace and line breaks included); re-read the file with read_text_file and copy the text to replace'
      : `oldText must match exactly; the nearest lines are:\n${shown}\nre-read them with read_text_file (offset/limit) and copy oldText exactly`;
  }
  return `add surrounding lines to oldText so that it matches one place, or set replaceAll: true; it matches:\n${shown}`;
}

const HINTS: Readonly<Record<ErrorCode, (data: Readonly<Record<string, unknown>>) => string>> = {
  INVALID_INPUT: (data) =>
    editHint(data) ??
    (data.reason === 'cursor_beyond_head'
      ? `since is past the workspace's head (seq ${num(data.head) ?? '?'}): call get_changes with since ${num(data.head) ?? 0} to wait for what changes next, or since 0 for everything`
      : undefined) ??
    (data.field === 'workspace'
      ? 'pass an existing workspace name (see list_workspaces)'
      : 'fix the argument named in the message and call again'),
  INVALID_PATH: () =>
    'paths are POSIX paths inside the workspace, like /reports/q3.md: no "." or ".." segments, no backslashes, no control characters, at most 4096 bytes',
  UNAUTHENTICATED: () => 'the API key is missing, unknown, revoked or expired; ask for a new key',
  FORBIDDEN: () =>
    'your key may not do this here (role, workspace or path narrowing); do not retry',
  NOT_FOUND: (data) =>
    data.field === 'workspace' || str(data.workspace) !== undefined
      ? 'check the workspace name with list_workspaces'
      : 'check the path with list_directory or search_files (names are case-sensitive)',
  CONFLICT: () =>
    'the destination exists or has the other type (file vs directory); choose another path or delete it first',
  PRECONDITION_FAILED: preconditionHint,
  TOO_LARGE: () =>
    'over a size limit; read in parts (read_text_file with offset/limit) or write smaller files',
  LOCKED: lockedHint,
  RATE_LIMITED: (data) =>
    `too many requests; retry after ${num(data.retryAfter) ?? 'a few'} seconds`,
  UNAVAILABLE: () =>
    'the server cannot reach its database or content store right now; retry in a few seconds',
  INTEGRITY: () => 'stored content failed its checksum; tell an administrator (satchel fsck)',
  INTERNAL: () => 'an unexpected server fault; retry once, then report it',
};

/** The error as plain data: code, message, next step and the error's own data. */
export function describeError(error: unknown): ToolErrorContent {
  const e = toSatchelError(error);
  return { code: e.code, message: e.message, hint: HINTS[e.code](e.data), data: e.data };
}

/** Where an error result carries its code, message, next step and data for programs. */
export const ERROR_META_KEY = 'satchel/error';

/**
 * The `isError` result of a failed tool call: the text starts with `CODE: message` and gives the
 * next step; `_meta["satchel/error"]` carries the same as data. No `structuredContent`: clients
 * (the SDK's among them) check it against the tool's output schema, which describes success.
 */
export function toolError(error: unknown): CallToolResult {
  const described = describeError(error);
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `${described.code}: ${described.message}\nNext step: ${described.hint}`,
      },
    ],
    _meta: { [ERROR_META_KEY]: described },
  };
}
