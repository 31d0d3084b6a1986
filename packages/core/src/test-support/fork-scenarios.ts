/**
 * Fork and merge scenarios, run on each metadata dialect (engine/fork.test.ts on SQLite,
 * fork.postgres.test.ts on PostgreSQL): what a user notices — files, seqs, content kept.
 */
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { SatchelEngine } from '../engine/satchel-engine.js';
import { readAll } from './temp.js';

export async function text(satchel: SatchelEngine, ws: string, path: string): Promise<string> {
  return (await readAll((await satchel.readFile(ws, path)).body)).toString();
}

export async function paths(satchel: SatchelEngine, ws: string): Promise<string[]> {
  const page = await satchel.list(ws, { path: '/', recursive: true, limit: 1000 });
  return page.items.map((i) => i.path);
}

/** Files under the blob directory (content stored outside the database). */
export async function blobFiles(data: string): Promise<number> {
  const entries = await readdir(join(data, 'blobs'), { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).length;
}

/**
 * Fork → both sides diverge → preview (writes nothing) → merge in one seq: clean paths merged,
 * the path both changed kept as ours with theirs beside it, nothing lost; then nothing left.
 */
export async function divergeAndMerge(satchel: SatchelEngine): Promise<void> {
  await satchel.writeFiles('ws', [
    { path: '/keep.txt', content: 'keep\n' },
    { path: '/both.txt', content: 'base\n' },
    { path: '/ours-only.txt', content: 'base\n' },
    { path: '/theirs-only.txt', content: 'base\n' },
    { path: '/gone.txt', content: 'base\n' },
  ]);
  const fork = await satchel.forkWorkspace('ws', 'exp');
  expect(fork).toMatchObject({ name: 'exp', source: 'ws', files: 5 });
  expect(fork.seq).toBe((await satchel.getWorkspace('ws')).seq);
  expect(await paths(satchel, 'exp')).toEqual(await paths(satchel, 'ws'));

  await satchel.writeFile('exp', '/theirs-only.txt', 'theirs\n');
  await satchel.writeFile('exp', '/both.txt', 'theirs\n');
  await satchel.remove('exp', '/gone.txt');
  await satchel.writeFile('exp', '/new/t.txt', 'new\n');
  await satchel.writeFile('ws', '/ours-only.txt', 'ours\n');
  await satchel.writeFile('ws', '/both.txt', 'ours\n');
  await satchel.writeFile('ws', '/o.txt', 'o\n');
  const before = await satchel.getWorkspace('ws');

  const preview = await satchel.previewMerge('ws', 'exp');
  expect(preview.summary).toEqual({ create: 2, modify: 1, delete: 1, conflicts: 1, unchanged: 2 });
  expect(preview.changes.map((c) => [c.path, c.action])).toEqual([
    ['/gone.txt', 'delete'],
    ['/new', 'create'],
    ['/new/t.txt', 'create'],
    ['/theirs-only.txt', 'modify'],
  ]);
  const [conflict] = preview.conflicts;
  expect(conflict).toMatchObject({
    path: '/both.txt',
    reason: 'both_changed',
    base: { deleted: false },
    ours: { deleted: false },
    theirs: { deleted: false },
  });
  expect(conflict?.keptAs).toMatch(/^\/both\.conflict-exp-\d{8}T\d{6}Z\.txt$/);
  // The preview wrote nothing.
  expect((await satchel.getWorkspace('ws')).seq).toBe(before.seq);
  expect(await text(satchel, 'ws', '/theirs-only.txt')).toBe('base\n');

  const result = await satchel.merge('ws', 'exp', {
    ifHead: preview.head,
    ifFromHead: preview.fromHead,
  });
  expect(result.seq).toBe(before.seq + 1);
  expect(result.session).toBe(`merge:${result.seq}`);
  const changes = await satchel.listChanges('ws', { after: before.seq });
  expect(new Set(changes.events.map((e) => e.seq))).toEqual(new Set([result.seq]));
  expect((await satchel.getWorkspace('ws')).seq).toBe(result.seq);

  expect(await text(satchel, 'ws', '/theirs-only.txt')).toBe('theirs\n');
  expect(await text(satchel, 'ws', '/ours-only.txt')).toBe('ours\n');
  expect(await text(satchel, 'ws', '/both.txt')).toBe('ours\n');
  expect(await text(satchel, 'ws', conflict?.keptAs ?? '')).toBe('theirs\n');
  expect(await text(satchel, 'ws', '/new/t.txt')).toBe('new\n');
  expect(await text(satchel, 'ws', '/o.txt')).toBe('o\n');
  expect(await text(satchel, 'ws', '/keep.txt')).toBe('keep\n');
  await expect(satchel.stat('ws', '/gone.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  // The fork is untouched by a merge into its source.
  expect(await text(satchel, 'exp', '/both.txt')).toBe('theirs\n');

  // The base moved on: merging again finds nothing, until the fork changes again.
  const again = await satchel.previewMerge('ws', 'exp');
  expect(again.summary).toEqual({ create: 0, modify: 0, delete: 0, conflicts: 0, unchanged: 0 });
  await satchel.writeFile('exp', '/theirs-only.txt', 'theirs 2\n');
  const next = await satchel.previewMerge('ws', 'exp');
  expect(next.changes.map((c) => [c.path, c.action])).toEqual([['/theirs-only.txt', 'modify']]);
  expect(next.conflicts).toEqual([]);
}

/** A fork shares its source's content (no new blob files) and keeps it once the source is gone. */
export async function sharesContent(satchel: SatchelEngine, data: string): Promise<void> {
  const big = randomBytes(200_000);
  await satchel.writeFile('ws', '/big.bin', big);
  await satchel.writeFile('ws', '/small.txt', 'small\n');
  const stored = await blobFiles(data);
  expect(stored).toBeGreaterThan(0);
  await satchel.forkWorkspace('ws', 'copy');
  expect(await blobFiles(data)).toBe(stored);
  await satchel.deleteWorkspace('ws');
  await satchel.collectGarbage({ graceSeconds: 0 });
  expect(await blobFiles(data)).toBe(stored);
  expect(
    Buffer.compare(await readAll((await satchel.readFile('copy', '/big.bin')).body), big),
  ).toBe(0);
  expect(await text(satchel, 'copy', '/small.txt')).toBe('small\n');
  expect((await satchel.fsck()).ok).toBe(true);
}
