/**
 * Conditional requests (RFC 9110 §13) on Satchel's validators: a file's ETag is `"<seq>"`, the
 * seq of the version that wrote it, and its Last-Modified is that version's time.
 */
import { SatchelError } from '@satchel/core';
import { HttpError } from '../problem.js';

interface EntityTag {
  readonly weak: boolean;
  /** The opaque tag without its quotes. */
  readonly opaque: string;
}

/** `*`, or the entity tags of an If-Match / If-None-Match field. */
export type TagList = '*' | readonly EntityTag[];

/** What a read's preconditions decided: send the representation, or 304. */
export type ReadVerdict = 'proceed' | 'not-modified';

/** The validators of the selected representation. */
export interface Validators {
  readonly path: string;
  readonly seq: number;
  /** ISO 8601. */
  readonly modifiedAt: string;
}

/** Reads one request header; undefined when absent. */
export type HeaderOf = (name: string) => string | undefined;

/** The ETag of version `seq`. */
export function etag(seq: number): string {
  return `"${seq}"`;
}

/** Last-Modified as an HTTP-date (second precision, as RFC 9110 requires). */
export function httpDate(iso: string): string {
  return new Date(iso).toUTCString();
}

/** ETag, Last-Modified and Satchel-Version of a version: sent on reads and write responses. */
export function versionHeaders(target: Validators): Record<string, string> {
  return {
    ETag: etag(target.seq),
    'Last-Modified': httpDate(target.modifiedAt),
    'Satchel-Version': String(target.seq),
  };
}

const TAG = /\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(?:,|$)/y;

/** Parses an ETag list; INVALID_INPUT naming `field` when it is not `*` or quoted tags. */
export function parseTags(value: string, field: string): TagList {
  if (value.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  TAG.lastIndex = 0;
  while (TAG.lastIndex < value.length) {
    const match = TAG.exec(value);
    if (match === null) {
      throw new SatchelError(
        'INVALID_INPUT',
        `invalid ${field}: use * or quoted ETags such as "12" (the quotes are part of the tag)`,
        { field },
      );
    }
    tags.push({ weak: match[1] !== undefined, opaque: match[2] ?? '' });
  }
  return tags;
}

function seconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

/** An HTTP-date in seconds; null when invalid (RFC 9110 says invalid dates are ignored). */
function parseDate(value: string | undefined): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

function strongMatch(tags: TagList, seq: number): boolean {
  return tags === '*' || tags.some((t) => !t.weak && t.opaque === String(seq));
}

function weakMatch(tags: TagList, seq: number): boolean {
  return tags === '*' || tags.some((t) => t.opaque === String(seq));
}

function failed(target: Validators, field: string): HttpError {
  return new HttpError(
    'PRECONDITION_FAILED',
    `${field} does not match ${target.path}, which is at version ${target.seq}`,
    { data: { path: target.path, actual: target.seq }, headers: { ETag: etag(target.seq) } },
  );
}

/**
 * Evaluates the preconditions of a GET or HEAD in RFC 9110 §13.2.2 order: If-Match (else
 * If-Unmodified-Since) fails with 412; If-None-Match (else If-Modified-Since) yields 304.
 */
export function evaluateRead(header: HeaderOf, target: Validators): ReadVerdict {
  const ifMatch = header('If-Match');
  if (ifMatch !== undefined) {
    if (!strongMatch(parseTags(ifMatch, 'If-Match'), target.seq)) throw failed(target, 'If-Match');
  } else {
    const since = parseDate(header('If-Unmodified-Since'));
    if (since !== null && seconds(target.modifiedAt) > since) {
      throw failed(target, 'If-Unmodified-Since');
    }
  }
  const ifNoneMatch = header('If-None-Match');
  if (ifNoneMatch !== undefined) {
    return weakMatch(parseTags(ifNoneMatch, 'If-None-Match'), target.seq)
      ? 'not-modified'
      : 'proceed';
  }
  const since = parseDate(header('If-Modified-Since'));
  return since !== null && seconds(target.modifiedAt) <= since ? 'not-modified' : 'proceed';
}

/** Whether a Range may be honoured: no If-Range, or one naming the current representation. */
export function rangeApplies(header: HeaderOf, target: Validators): boolean {
  const ifRange = header('If-Range');
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) {
    const tags = parseTags(value, 'If-Range');
    // If-Range uses the strong comparison: a weak tag never matches.
    return tags !== '*' && tags.length === 1 && strongMatch(tags, target.seq);
  }
  return parseDate(value) === seconds(target.modifiedAt);
}

/** The core options a write's If-Match / If-None-Match headers stand for. */
export interface WriteConditions {
  ifMatch?: number;
  ifNoneMatch?: '*';
}

/**
 * Turns If-Match / If-None-Match of a write into core's atomic `ifMatch` / `ifNoneMatch`.
 * A single `"N"` is passed through; `*` or a list needs the current head (`head()`, null when
 * the file does not exist) and becomes `ifMatch: head`, so the write stays atomic: if the head
 * moves meanwhile, core refuses with 412. `If-None-Match: *` (create-only) is accepted only
 * where `createOnly` is allowed; other If-None-Match values are INVALID_INPUT.
 */
export async function writeConditions(
  header: HeaderOf,
  path: string,
  head: () => Promise<number | null>,
  { createOnly }: { createOnly: boolean },
): Promise<WriteConditions> {
  const conditions: WriteConditions = {};
  const ifNoneMatch = header('If-None-Match');
  if (ifNoneMatch !== undefined) {
    if (!createOnly || parseTags(ifNoneMatch, 'If-None-Match') !== '*') {
      throw new SatchelError(
        'INVALID_INPUT',
        createOnly
          ? 'invalid If-None-Match: writes support only "If-None-Match: *" (create only)'
          : 'invalid If-None-Match: not supported on this request',
        { field: 'If-None-Match' },
      );
    }
    conditions.ifNoneMatch = '*';
  }
  const ifMatch = header('If-Match');
  if (ifMatch === undefined) return conditions;
  const tags = parseTags(ifMatch, 'If-Match');
  const only = tags !== '*' && tags.length === 1 ? tags[0] : undefined;
  if (only !== undefined && !only.weak && /^\d{1,15}$/.test(only.opaque)) {
    conditions.ifMatch = Number(only.opaque);
    return conditions;
  }
  const current = await head();
  if (current === null || !strongMatch(tags, current)) {
    throw new HttpError(
      'PRECONDITION_FAILED',
      current === null
        ? `${path} does not exist; If-Match needs a current version`
        : `If-Match does not match ${path}, which is at version ${current}`,
      { data: { path, actual: current } },
    );
  }
  conditions.ifMatch = current;
  return conditions;
}
