/**
 * Where a comment's lines are now: the anchored version's lines are found in the head version
 * by a line diff (jsdiff's `diffArrays`). The range moves with the lines around it; it is
 * outdated when one of its lines was changed or removed, or lines were inserted inside it.
 */
import { diffArrays } from 'diff';

/** Edits past which two versions are too different to follow lines through (deterministic). */
const MAX_EDIT_LENGTH = 20_000;
/** Characters of the anchored lines a thread carries as its excerpt. */
export const MAX_EXCERPT_CHARS = 2000;

/** The lines of a text: split at "\n" (a "\r" before it stays), no empty last line. */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Lines `start`–`end` (1-based, inclusive) of `lines`, bounded to MAX_EXCERPT_CHARS. */
export function excerptOf(lines: readonly string[], start: number, end: number): string {
  const text = lines.slice(start - 1, end).join('\n');
  return text.length > MAX_EXCERPT_CHARS ? `${text.slice(0, MAX_EXCERPT_CHARS)}…` : text;
}

/**
 * Lines `start`–`end` of `before` as they are in `after` (1-based, inclusive), or null when
 * any of them was changed or removed, lines were inserted between them, or the versions differ
 * by more than MAX_EDIT_LENGTH edits.
 */
export function relocate(
  before: readonly string[],
  after: readonly string[],
  start: number,
  end: number,
): { startLine: number; endLine: number } | null {
  const parts = diffArrays([...before], [...after], { maxEditLength: MAX_EDIT_LENGTH });
  if (parts === undefined) return null;
  const first = start - 1;
  const last = end - 1;
  let oldIndex = 0;
  let newIndex = 0;
  let startAt: number | null = null;
  let endAt: number | null = null;
  for (const part of parts) {
    const count = part.count ?? part.value.length;
    if (part.added) {
      // An insertion between two lines of the range splits it.
      if (oldIndex > first && oldIndex <= last) return null;
      newIndex += count;
    } else if (part.removed) {
      if (oldIndex <= last && oldIndex + count - 1 >= first) return null;
      oldIndex += count;
    } else {
      if (first >= oldIndex && first < oldIndex + count) startAt = newIndex + (first - oldIndex);
      if (last >= oldIndex && last < oldIndex + count) endAt = newIndex + (last - oldIndex);
      oldIndex += count;
      newIndex += count;
    }
  }
  if (startAt === null || endAt === null) return null;
  return { startLine: startAt + 1, endLine: endAt + 1 };
}
