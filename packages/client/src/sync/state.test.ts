/** The sync state on a real directory: what a checkpoint writes is what the next load reads. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LocalTree } from './local-tree.js';
import { type FileState, SyncState } from './state.js';
import { STATE_DIR, STATE_FILE } from './tree.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'satchel-state-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

it('reads back every file a checkpoint wrote, across the pieces state.json is written in', async () => {
  const tree = new LocalTree(root);
  const state = await SyncState.load(tree, 'ws');
  const written = new Map<string, FileState>();
  // ~2,000 files of long names: a state of several 64 KiB pieces, names that need escaping too.
  for (let i = 0; i < 2000; i++) {
    const path = `/dir-${i % 7}/${'long-name-'.repeat(4)}${i}${i % 3 === 0 ? ' "quoted" café ☕\\' : ''}.txt`;
    const file: FileState =
      i % 5 === 0
        ? { seq: i, hash: 'a'.repeat(64), size: i * 3, mtimeMs: 1_700_000_000_000.5 + i }
        : { seq: i, hash: 'b'.repeat(64), size: i, mtimeMs: 1_700_000_000_123 + i, ino: 10 + i };
    written.set(path, file);
    await state.set(path, file);
  }
  await state.delete('/dir-0/gone.txt');
  await state.checkpoint(42, Date.UTC(2026, 11, 5), { seq: 2042, rules: 'r' });

  const text = await readFile(join(root, STATE_DIR, STATE_FILE), 'utf8');
  expect(text.length).toBeGreaterThan(3 * 65_536);
  const again = await SyncState.load(tree, 'ws');
  expect(again.found).toBe(true);
  expect(again.cursor).toBe(42);
  expect(again.settled).toEqual({ seq: 2042, rules: 'r' });
  expect(again.lastSyncAt).toBe('2026-12-05T00:00:00.000Z');
  expect(new Map(again.files())).toEqual(written);
  expect(JSON.parse(text)).toMatchObject({ format: 1, workspace: 'ws', conflicts: [] });
});
