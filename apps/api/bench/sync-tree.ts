/**
 * The tree of the sync-over-HTTP benchmark (sync.ts), generated as core's bench/sync-tree.ts
 * generates it (the same bytes on every run), and the manifest that checks a rehydrated copy.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

const MIB = 1024 * 1024;

/** xorshift32, seeded as core's bench/sync-tree.ts: the same tree. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/** `count` files of ~`totalMb` MiB in 100 folders (as core's bench: ~1 KiB to ~19 KiB each). */
export async function generateTree(root: string, count: number, totalMb: number): Promise<number> {
  const next = prng(42);
  const pool = Buffer.alloc(2 * MIB);
  for (let i = 0; i < pool.length; i += 4) pool.writeUInt32LE(next(), i);
  const mean = (totalMb * MIB) / count;
  let bytes = 0;
  for (let d = 0; d < 100; d++) await mkdir(join(root, `dir-${d}`), { recursive: true });
  const writes: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const size = Math.max(16, Math.round(mean * (0.1 + (1.8 * (next() % 1000)) / 1000)));
    const offset = next() % (pool.length - size);
    const data = Buffer.from(pool.subarray(offset, offset + size));
    data.writeUInt32BE(i, 0);
    bytes += size;
    writes.push(writeFile(join(root, `dir-${i % 100}`, `file-${i}.bin`), data));
    if (writes.length >= 64) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
  return bytes;
}

/** Every file of a tree (the sync state aside), path → SHA-256, in path order. */
export async function manifest(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((rel) => !rel.startsWith('.satchel-sync'))
    .sort();
  for (const rel of files) {
    out.set(
      rel,
      createHash('sha256')
        .update(await readFile(join(root, rel)))
        .digest('hex'),
    );
  }
  return out;
}
