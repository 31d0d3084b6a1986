/** The fork and merge part of the Satchel contract (run from satchel.contract.ts). */
import { expect, it } from 'vitest';
import type { World } from './satchel.contract.js';

export function forkBehaviour(w: () => World): void {
  it('forks at a snapshot, diverges, previews and merges back in one seq with the conflict kept beside', async () => {
    const { admin, editor, viewer, stranger } = w();
    const ws = await w().workspace('forked');
    await admin.writeFiles(ws, [
      { path: '/a.txt', content: 'a\n' },
      { path: '/b.txt', content: 'b\n' },
    ]);
    await admin.createSnapshot(ws, 'start');
    await admin.writeFile(ws, '/later.txt', 'later\n');

    // Reading the source is enough to fork it; the fork belongs to whoever made it.
    const fork = await editor.forkWorkspace(ws, `${ws}-try`, { at: 'start' });
    expect(fork).toMatchObject({ name: `${ws}-try`, source: ws, files: 2 });
    await expect(stranger.forkWorkspace(ws, `${ws}-x`)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(viewer.getWorkspace(fork.name)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await editor.writeFile(fork.name, '/a.txt', 'theirs\n');
    await editor.writeFile(fork.name, '/b.txt', 'theirs b\n');
    await admin.writeFile(ws, '/b.txt', 'ours b\n');

    const preview = await editor.previewMerge(ws, fork.name);
    expect(preview.changes.map((c) => [c.path, c.action])).toEqual([['/a.txt', 'modify']]);
    expect(preview.conflicts).toEqual([
      expect.objectContaining({ path: '/b.txt', reason: 'both_changed' }),
    ]);
    const keptAs = preview.conflicts[0]?.keptAs ?? '';
    const apply = { ifHead: preview.head, ifFromHead: preview.fromHead };
    await expect(viewer.merge(ws, fork.name, apply)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const done = await editor.merge(ws, fork.name, apply);
    expect(done).toMatchObject({ seq: preview.head + 1, session: `merge:${preview.head + 1}` });
    expect((await viewer.readText(ws, '/a.txt')).text).toBe('theirs\n');
    expect((await viewer.readText(ws, '/b.txt')).text).toBe('ours b\n');
    expect((await viewer.readText(ws, keptAs)).text).toBe('theirs b\n');
    expect((await viewer.readText(ws, '/later.txt')).text).toBe('later\n');
  });
}
