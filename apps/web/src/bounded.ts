/**
 * Bounded text previews: a file page shows the first lines of a text file — 1,000 by default,
 * more on request ("Show more", `?lines=`) up to a ceiling — reading only the bytes those lines
 * can take, so a 5 MB text file costs a page of a few hundred KB, never 5 MB of markup.
 */
import { SatchelError } from '@satchel/core';
import type { Context } from 'hono';
import type { WebEnv } from './web-env.js';

export const DEFAULT_LINES = 1000;
export const MAX_LINES = 50_000;
/** Bytes read per line asked for (long lines are cut by the byte budget instead). */
const BYTES_PER_LINE = 256;
const MIN_BYTES = 64 * 1024;
const MAX_BYTES = 8 * 1024 * 1024;

/** The `lines` query parameter: how many lines the preview shows. */
export function linesParam(c: Context<WebEnv>): number {
  const raw = c.req.query('lines');
  if (raw === undefined || raw === '') return DEFAULT_LINES;
  const n = Number(raw);
  if (!/^\d{1,6}$/.test(raw) || n < 1 || n > MAX_LINES) {
    throw new SatchelError('INVALID_INPUT', `lines must be a number from 1 to ${MAX_LINES}`, {
      field: 'lines',
    });
  }
  return n;
}

/** Bytes to read for a preview of `lines` lines. */
export function bytesFor(lines: number): number {
  return Math.min(MAX_BYTES, Math.max(MIN_BYTES, lines * BYTES_PER_LINE));
}

/** The first `lines` lines of `text`, and whether anything was left out. */
export function firstLines(
  text: string,
  lines: number,
  fileTruncated: boolean,
): { text: string; shown: number; more: boolean } {
  let at = 0;
  let shown = 0;
  while (shown < lines) {
    const next = text.indexOf('\n', at);
    if (next === -1) {
      at = text.length;
      if (at > 0 && !text.endsWith('\n')) shown++;
      break;
    }
    at = next + 1;
    shown++;
  }
  const cut = at < text.length;
  return { text: text.slice(0, at), shown, more: cut || fileTruncated };
}

/** The next "Show more" size: four times as many lines, up to the ceiling; null at it. */
export function moreLines(lines: number): number | null {
  return lines >= MAX_LINES ? null : Math.min(MAX_LINES, lines * 4);
}
