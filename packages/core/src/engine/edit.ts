/** Text edits: exact replacements applied in order, previewed as a unified diff. */

import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizeEntryPath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type Edit,
  type EditOptions,
  EditOptionsSchema,
  type EditResult,
  EditSchema,
} from '@satchel/client/schemas/index.js';
import { createTwoFilesPatch } from 'diff';
import { isBinary, readWhole } from '../kernel/content.js';
import {
  type EngineContext,
  notFound,
  preconditionFailed,
  requireWorkspace,
} from '../kernel/context.js';
import { entryInfo } from '../kernel/records.js';
import { linesAt, nearestLines } from './edit-candidates.js';
import { writeFile } from './write.js';

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) {
    found.push(i);
  }
  return found;
}

/**
 * Applies `edits` in order, each to the result of the previous one. An edit whose `oldText`
 * occurs nowhere, or more than once without `replaceAll`, fails with INVALID_INPUT saying which
 * edit (1-based) and how many matches, with their line numbers, and in `data.candidates` the
 * lines it probably meant (nearest to the first line of `oldText`, or the matching lines).
 */
export function applyEdits(
  text: string,
  edits: readonly Edit[],
  replaceAllByDefault = false,
): { text: string; replacements: number } {
  let result = text;
  let replacements = 0;
  edits.forEach((edit, i) => {
    const n = i + 1;
    const found = occurrences(result, edit.oldText);
    const replaceAll = edit.replaceAll ?? replaceAllByDefault;
    if (found.length === 0) {
      throw new SatchelError('INVALID_INPUT', `edit ${n}: the text to replace was not found`, {
        edit: n,
        matches: 0,
        candidates: nearestLines(result, edit.oldText),
      });
    }
    if (found.length > 1 && !replaceAll) {
      const lines = found.slice(0, 10).map((at) => lineOf(result, at));
      throw new SatchelError(
        'INVALID_INPUT',
        `edit ${n}: the text to replace matches ${found.length} places (lines ${lines.join(', ')}${found.length > 10 ? ', …' : ''}); include more context to make it unique, or replace all of them`,
        { edit: n, matches: found.length, lines, candidates: linesAt(result, lines) },
      );
    }
    result = replaceAll
      ? result.split(edit.oldText).join(edit.newText)
      : spliceOnce(result, found[0] ?? 0, edit);
    replacements += found.length;
  });
  return { text: result, replacements };
}

function spliceOnce(text: string, at: number, edit: Edit): string {
  return text.slice(0, at) + edit.newText + text.slice(at + edit.oldText.length);
}

const EDIT_RETRIES = 3;

export async function editFile(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  rawEdits: readonly Edit[],
  rawOptions?: EditOptions,
): Promise<EditResult> {
  validateWorkspaceName(workspace);
  const path = normalizeEntryPath(rawPath);
  const options = parseOptions(EditOptionsSchema, rawOptions);
  const edits = parseEdits(rawEdits);
  for (let attempt = 0; ; attempt++) {
    const ws = await requireWorkspace(ctx.store, workspace);
    const head = await ctx.store.getEntry(ws.id, path);
    if (!head) throw notFound(path);
    if (head.type !== 'file' || head.hash === null) {
      throw new SatchelError('INVALID_INPUT', `${path} is a directory`, { path });
    }
    if (options.ifMatch !== undefined && head.seq !== options.ifMatch) {
      throw preconditionFailed(path, options.ifMatch, head.seq);
    }
    const data = await readWhole(ctx, ctx.store, head.hash, ctx.limits.maxTextBytes, 'edit');
    if (isBinary(data)) {
      throw new SatchelError('INVALID_INPUT', `${path} is a binary file; edits apply to text`, {
        path,
      });
    }
    const before = data.toString('utf8');
    const { text, replacements } = applyEdits(before, edits, options.replaceAll);
    const patch = (label: string) =>
      createTwoFilesPatch(path, path, before, text, `version ${head.seq}`, label);
    if (options.dryRun) {
      return { diff: patch('dry run'), replacements, dryRun: true, info: entryInfo(head) };
    }
    try {
      const info = await writeFile(
        ctx,
        workspace,
        path,
        text,
        {
          ifMatch: head.seq,
          session: options.session,
          message: options.message,
          lockToken: options.lockToken,
        },
        'edit',
      );
      return { diff: patch(`version ${info.seq}`), replacements, dryRun: false, info };
    } catch (error) {
      // Someone wrote in between: re-apply the edits to the new head, unless pinned by ifMatch.
      const raced = error instanceof SatchelError && error.code === 'PRECONDITION_FAILED';
      if (!raced || options.ifMatch !== undefined || attempt >= EDIT_RETRIES) throw error;
    }
  }
}

function parseEdits(edits: readonly Edit[]): Edit[] {
  if (!Array.isArray(edits) || edits.length === 0) {
    throw new SatchelError(
      'INVALID_INPUT',
      'edits must be a non-empty array of {oldText, newText}',
      {
        field: 'edits',
      },
    );
  }
  return edits.map((edit, i) => {
    const parsed = EditSchema.safeParse(edit);
    if (!parsed.success) {
      throw new SatchelError(
        'INVALID_INPUT',
        `edit ${i + 1}: ${parsed.error.issues[0]?.message ?? 'invalid'} (${parsed.error.issues[0]?.path.join('.') ?? ''})`,
        { field: `edits.${i}` },
      );
    }
    return parsed.data;
  });
}
