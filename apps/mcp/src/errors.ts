/**
 * SatchelError → an `isError` tool result an agent can act on: the code, the message, and the
 * next step. Mapped here once; every tool goes through `toolError`. A domain failure is never a
 * protocol error.
 */

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type ErrorCode, SatchelError, toSatchelError } from '@satchel/core';
import type { ToolContext } from './tool.js';

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

type Data = Readonly<Record<string, unknown>>;

function preconditionHint(data: Data): string {
  const expected = data.expected;
  const actual = num(data.actual);
  if (expected === '*') {
    return `the file already exists (version ${actual ?? '?'}); read it first, then write with ifMatch ${actual ?? '<its version>'} to replace it`;
  }
  if (actual === undefined || data.actual === null) {
    return 'the file does not exist (never written, or deleted): to create it, call write_file with ifNoneMatch "*" instead of ifMatch; list_versions shows whether it was deleted';
  }
  return `the file changed since version ${num(expected) ?? expected} (it is now version ${actual}): re-read it with read_text_file and retry with ifMatch ${actual}`;
}

function lockedHint(data: Data): string {
  if (data.reason === 'stale_token') {
    return 'your lock token is no longer live (the lock expired, was released or was broken): take a new lock with lock_file and retry with its token';
  }
  const holder = str(data.holder);
  const until = str(data.expiresAt);
  if (holder === undefined) {
    return 'an earlier lock request is waiting for this path; retry shortly, or call lock_file with waitSeconds to queue';
  }
  return `locked by ${holder} until ${until ?? 'its lease ends'} (lock ${str(data.lockId) ?? '?'}). If the lock is yours, pass its token as lockToken: a lock keeps out every write without it, the holder's own included. Otherwise call lock_file with waitSeconds to wait for it, or retry after that`;
}

function editHint(data: Data): string | undefined {
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

function invalidInputHint(data: Data, tool: string): string {
  const edit = editHint(data);
  if (edit !== undefined) return edit;
  switch (data.reason) {
    case 'cursor_beyond_head':
      return `since is past the workspace's head (seq ${num(data.head) ?? '?'}): call get_changes with since ${num(data.head) ?? 0} to wait for what changes next, or since 0 for everything`;
    case 'unknown_argument':
      return `${tool} has no argument "${str(data.field) ?? '?'}": call it again without it (tools/list shows its arguments)`;
    case 'binary':
      return 'this is a binary file: read it with read_media_file, or move it with create_download_url';
    case 'text_file':
      return 'this is a text file: read it with read_text_file (offset/limit for parts), or move it with create_download_url';
    case 'directory':
      return 'this is a directory: list it with list_directory';
    case 'invalid_glob':
      return 'fix the glob: close every "[" with "]", or write \\[ for a literal bracket';
  }
  return data.field === 'workspace'
    ? 'pass an existing workspace name (see list_workspaces)'
    : 'fix the argument named in the message and call again';
}

function notFoundHint(data: Data, tool: string): string {
  const restorable = num(data.restorable);
  if (restorable !== undefined) {
    return `the file was deleted at version ${num(data.deletedAt) ?? '?'}: restore_version with version ${restorable} brings it back (list_versions shows its history)`;
  }
  if (data.snapshot !== undefined) {
    return 'no snapshot of that name: list_snapshots shows the snapshots of this workspace';
  }
  if (data.at !== undefined) {
    return 'it did not exist at that seq: list_directory with the same at shows what did, list_versions shows its history';
  }
  if (data.lockId !== undefined) {
    return 'the lock expired or was released: list_locks shows the live locks; take a new one with lock_file';
  }
  if (data.what === 'version' || (data.seq !== undefined && data.path !== undefined)) {
    return 'no such version of this file: list_versions shows the versions that exist';
  }
  if (tool.includes('invitation')) return 'list_invitations shows your pending invitations';
  if (data.field === 'workspace' || str(data.workspace) !== undefined) {
    return 'check the workspace name with list_workspaces';
  }
  return 'check the path with list_directory or search_files (names are case-sensitive)';
}

function conflictHint(data: Data, tool: string): string {
  if (tool === 'create_workspace') {
    return 'a workspace with this name exists: choose another name, or work in it (list_workspaces shows yours)';
  }
  if (data.reason === 'snapshot_exists') {
    return 'a snapshot of this name exists: choose another name (list_snapshots shows them)';
  }
  if (data.reason === 'type_mismatch') {
    return "a file and a directory are in each other's way on this path: choose another path, or delete_file what is there";
  }
  if (tool === 'move_file' || tool === 'copy_file') {
    return 'the destination exists: choose another destination, or delete_file it first';
  }
  return 'something already exists here: choose another name or path';
}

function forbiddenHint(data: Data): string {
  if (data.reason === 'read_only') {
    return 'nothing can be changed through this connection; do not retry — ask for a key that may write';
  }
  return "your key's role or narrowing does not allow this here; do not retry — ask an owner of the workspace (list_members) for access";
}

function tooLargeHint(tool: string): string {
  if (tool === 'write_file' || tool === 'append_file' || tool === 'edit_file') {
    return 'too large to pass inline: upload it with create_upload_url and curl, or write smaller files';
  }
  if (tool === 'read_media_file') {
    return 'too large to return inline: fetch it with create_download_url and curl';
  }
  return 'over a size limit: read in parts (read_text_file with offset/limit), or fetch the file with create_download_url';
}

const HINTS: Readonly<Record<ErrorCode, (data: Data, tool: string) => string>> = {
  INVALID_INPUT: invalidInputHint,
  INVALID_PATH: () =>
    'paths are POSIX paths inside the workspace, like /reports/q3.md: no "." or ".." segments, no backslashes, no control characters, no trailing "/" for a file, at most 4096 bytes',
  UNAUTHENTICATED: () =>
    'the API key is missing, unknown, revoked or expired: ask whoever gave you the key for a new one',
  FORBIDDEN: forbiddenHint,
  NOT_FOUND: notFoundHint,
  CONFLICT: conflictHint,
  PRECONDITION_FAILED: preconditionHint,
  TOO_LARGE: (_data, tool) => tooLargeHint(tool),
  LOCKED: lockedHint,
  QUOTA_EXCEEDED: (data) =>
    `the workspace is at its ${str(data.quota) === 'files' ? 'file' : 'storage'} quota (${num(data.usage) ?? '?'} of ${num(data.limit) ?? '?'}); do not retry as is — delete_file what is no longer needed (history still counts toward a history quota), or ask an administrator to raise the quota`,
  RATE_LIMITED: (data) =>
    `too many requests; retry after ${num(data.retryAfter) ?? 'a few'} seconds`,
  UNAVAILABLE: () =>
    'the server cannot reach its database or content store right now; retry in a few seconds',
  REDACTED: () =>
    "an owner removed this version's content for good; read the head or another version (list_versions)",
  INTEGRITY: () =>
    'stored content failed its checksum; do not retry — an earlier version (list_versions) may still read, and an administrator must repair this one',
  INTERNAL: () => 'an unexpected server fault; retry once, then report it',
};

/** The error as plain data: code, message, the next step from `tool`, and the error's data. */
export function describeError(error: unknown, tool: string): ToolErrorContent {
  const e = toSatchelError(error);
  return { code: e.code, message: e.message, hint: HINTS[e.code](e.data, tool), data: e.data };
}

/**
 * A NOT_FOUND for a path that exists no longer, with what the hint needs to name the version to
 * restore (`deletedAt`, `restorable`); any other error as it is. Costs one history lookup, on the
 * failure path only.
 */
export async function explainNotFound(
  error: unknown,
  ctx: ToolContext,
  workspace: unknown,
): Promise<unknown> {
  if (!(error instanceof SatchelError) || error.code !== 'NOT_FOUND') return error;
  const path = str(error.data.path);
  // A read of the past (`at`) is about then, not about what happened to the file since.
  if (path === undefined || error.data.what === 'version' || error.data.at !== undefined) {
    return error;
  }
  try {
    const ws = await ctx.workspace(typeof workspace === 'string' ? workspace : undefined);
    const { items } = await ctx.satchel.listVersions(ws, path, { limit: 2 });
    const [deletion, before] = items;
    if (deletion?.deleted !== true || before === undefined || before.deleted) return error;
    return new SatchelError(error.code, `${path} was deleted at version ${deletion.seq}`, {
      ...error.data,
      deletedAt: deletion.seq,
      restorable: before.seq,
    });
  } catch {
    // No history either (never existed, or not visible): the error stands as it is.
    return error;
  }
}

/** Where an error result carries its code, message, next step and data for programs. */
export const ERROR_META_KEY = 'satchel/error';

/**
 * The `isError` result of a failed tool call: the text starts with `CODE: message` and gives the
 * next step; `_meta["satchel/error"]` carries the same as data. No `structuredContent`: clients
 * (the SDK's among them) check it against the tool's output schema, which describes success.
 */
export function toolError(error: unknown, tool: string): CallToolResult {
  const described = describeError(error, tool);
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
