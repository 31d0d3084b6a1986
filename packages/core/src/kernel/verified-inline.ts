/**
 * Inline content already verified in this process, by hash: a private copy of each, so that a
 * later read of the same content is verified by comparing bytes (a memcmp) instead of hashing
 * them again. Content is immutable by hash, so a copy verified once stays the truth for that
 * hash; bytes read later are accepted only if they equal it. Bounded by bytes, least recently
 * used first out; shared by every engine of the process.
 */

const MAX_BYTES = 8 * 1024 * 1024;

const copies = new Map<string, Buffer>();
let held = 0;

/** True if `data` is, byte for byte, the content verified earlier for `hash`. */
export function knownGood(hash: string, data: Uint8Array): boolean {
  const copy = copies.get(hash);
  if (copy === undefined || !copy.equals(data)) return false;
  // Most recently used last.
  copies.delete(hash);
  copies.set(hash, copy);
  return true;
}

/** Remembers `data` as the verified content of `hash` (a copy: the caller keeps its bytes). */
export function rememberGood(hash: string, data: Uint8Array): void {
  if (data.byteLength > MAX_BYTES / 64 || copies.has(hash)) return;
  copies.set(hash, Buffer.from(data));
  held += data.byteLength;
  for (const [oldest, copy] of copies) {
    if (held <= MAX_BYTES) break;
    copies.delete(oldest);
    held -= copy.byteLength;
  }
}
