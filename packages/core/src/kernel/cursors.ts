/** Page cursors: opaque to callers, INVALID_INPUT when tampered with. */
import { SatchelError } from '@satchel/client/errors.js';

/** Cursors are opaque to callers: base64url JSON of where the next page starts. */
export function encodeCursor(value: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<K extends string>(
  cursor: string | undefined,
  keys: readonly K[],
): Record<K, string | number> | null {
  if (cursor === undefined) return null;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    for (const key of keys) {
      const v = value[key];
      if (typeof v !== 'string' && typeof v !== 'number') throw new Error(key);
    }
    return value as Record<K, string | number>;
  } catch {
    throw new SatchelError(
      'INVALID_INPUT',
      'invalid cursor: pass nextCursor from the previous page unchanged',
      {
        field: 'cursor',
      },
    );
  }
}
